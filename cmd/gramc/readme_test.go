package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// readmeBlock is a fenced block of a Markdown document.
type readmeBlock struct {
	lang, text string
}

// docFileSection returns the fenced blocks of a section of a Markdown file
// of the repository (a path relative to its root, such as "docs/cli.md"):
// from the heading to the next heading of the same or a higher level
// outside a fenced block.
func docFileSection(t *testing.T, file, heading string) []readmeBlock {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../..", file))
	if err != nil {
		t.Fatal(err)
	}
	text, ok := markdownSection(string(b), heading)
	if !ok {
		t.Fatalf("%s has no section %q", file, heading)
	}
	var out []readmeBlock
	re := regexp.MustCompile("(?ms)^```(\\w*)[^\n]*\n(.*?)^```\n")
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		out = append(out, readmeBlock{m[1], m[2]})
	}
	return out
}

// markdownSection returns the text of a section of a Markdown document,
// from its heading to the next heading of the same or a higher level; lines
// of fenced blocks (a "# comment" in a shell block) are no headings.
func markdownSection(doc, heading string) (string, bool) {
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		return "", false
	}
	text := doc[i+len(heading)+2:]
	level := strings.IndexByte(heading, ' ')
	fenced := false
	off := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if !fenced {
			if n := len(line) - len(strings.TrimLeft(line, "#")); n >= 1 && n <= level && strings.HasPrefix(line[n:], " ") {
				return text[:off], true
			}
		}
		off += len(line)
	}
	return text, true
}

// TestReadmeTests checks the section on tests of docs/cli.md ("gramc
// test", once the README's "Testing agents") against the real thing: its test compiles cleanly against examples/greeter.gram, the
// mistakes get exactly the diagnostics shown, the failure shown is what
// gramc test prints for that test against a model that greets Bob instead
// of Ann, and the command line for the examples is the one TestExampleTests
// runs.
func TestReadmeTests(t *testing.T) {
	blocks := docFileSection(t, "docs/cli.md", "## gramc test")
	var gram, text []string
	var sh string
	for _, b := range blocks {
		switch b.lang {
		case "gram":
			gram = append(gram, b.text)
		case "text":
			text = append(text, b.text)
		case "sh":
			sh = b.text
		}
	}
	if len(gram) != 2 || len(text) != 2 || sh == "" {
		t.Fatalf("the section has %d gram, %d text and sh %q blocks; want the test, the mistakes, their diagnostics, a failure and the examples' command", len(gram), len(text), sh)
	}
	dir := t.TempDir()
	agents, err := os.ReadFile("../../examples/greeter.gram")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "greeter.gram"), agents, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	write := func(src string) {
		if err := os.WriteFile("greeter_test.gram", []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The test compiles cleanly.
	write(gram[0])
	var out, errOut bytes.Buffer
	if code := Main([]string{"check", "greeter_test.gram"}, nil, &out, &errOut); code != exitOK {
		t.Fatalf("the README's test: exit %d\n%s%s", code, out.String(), errOut.String())
	}

	// The failure shown.
	model := func(req *fakeopenai.Request) fakeopenai.Response {
		msgs := req.Body.Messages
		last := msgs[len(msgs)-1]
		switch s := last.Text(); {
		case strings.HasPrefix(s, "Judge "):
			return fakeopenai.Text(`{"score": 0.9, "reason": "Polite"}`)(req)
		case s == "Hi, I'm Ann":
			return fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Bob"}`})(req)
		case strings.HasPrefix(s, "I have to go"):
			return fakeopenai.Calls(fakeopenai.Call{Name: "sayGoodbye", Arguments: `{"personName":"Ann"}`})(req)
		}
		return fakeopenai.Text(last.Text())(req)
	}
	srv := fakeopenai.New(t, repeatStep(model, 100)...)
	out.Reset()
	errOut.Reset()
	if code := Main([]string{"test", "--base-url", srv.URL, "greeter_test.gram"}, nil, &out, &errOut); code != exitError {
		t.Fatalf("the README's test against a model greeting Bob: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if diff := cmp.Diff(text[1], out.String()); diff != "" {
		t.Errorf("the README's failure (-README +gramc test):\n%s", diff)
	}

	// The mistakes and their diagnostics.
	write(gram[1])
	out.Reset()
	if code := Main([]string{"check", "greeter_test.gram"}, nil, &out, &errOut); code != exitError {
		t.Fatalf("the README's mistakes: exit %d", code)
	}
	if diff := cmp.Diff(text[0], out.String()); diff != "" {
		t.Errorf("the README's diagnostics (-README +gramc check):\n%s", diff)
	}

	// The examples' command line needs no flag but --replay: the examples'
	// bindings file binds their tools (TestExampleTests runs it so).
	words := strings.Join(strings.Fields(strings.ReplaceAll(sh, "\\\n", " ")), " ")
	if strings.Contains(words, "--tool") || strings.Contains(words, "--inject") {
		t.Errorf("the README's command for the examples binds tools with flags, which examples/bindings.gram does: %s", words)
	}
	if !strings.Contains(words, "gramc test --replay") {
		t.Errorf("the README's command for the examples does not replay: %s", words)
	}
}
