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

// readmeBlock is a fenced block of the README.
type readmeBlock struct {
	lang, text string
}

// readmeSection returns the fenced blocks of a section of README.md (from
// its heading to the next heading of the same or a higher level).
func readmeSection(t *testing.T, heading string) []readmeBlock {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("README.md has no section %q", heading)
	}
	text = text[i+len(heading)+2:]
	level := heading[:strings.IndexByte(heading, ' ')+1]
	if j := regexp.MustCompile(`(?m)^#{1,` + itoa(len(level)-1) + `} `).FindStringIndex(text); j != nil {
		text = text[:j[0]]
	}
	var out []readmeBlock
	re := regexp.MustCompile("(?ms)^```(\\w*)\n(.*?)^```\n")
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		out = append(out, readmeBlock{m[1], m[2]})
	}
	return out
}

func itoa(n int) string { return string(rune('0' + n)) }

// TestReadmeTests checks the README's section on tests against the real
// thing: its test compiles cleanly against examples/greeter.gram, the
// mistakes get exactly the diagnostics shown, the failure shown is what
// gramc test prints for that test against a model that greets Bob instead
// of Ann, and the command line for the examples is the one TestExampleTests
// runs.
func TestReadmeTests(t *testing.T) {
	blocks := readmeSection(t, "### Testing agents")
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

	// The examples' command line is the one TestExampleTests runs.
	words := strings.Join(strings.Fields(strings.ReplaceAll(sh, "\\\n", " ")), " ")
	for _, a := range exampleTestArgs(t, "examples")[3:] {
		if strings.HasPrefix(a, "findOrders=") || strings.HasPrefix(a, "getOrder=") || strings.HasPrefix(a, "cancelOrder=") {
			name, _, _ := strings.Cut(a, "=")
			a = name + "='sh examples/tools/orders.sh " + name + "'"
		}
		if !strings.Contains(words, a) {
			t.Errorf("the README's command for the examples lacks %s: %s", a, words)
		}
	}
	if !strings.Contains(words, "gramc test --replay") {
		t.Errorf("the README's command for the examples does not replay: %s", words)
	}
}
