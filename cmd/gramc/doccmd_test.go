package main

// The commands the documentation shows are run by tests: TestReadmeTour runs
// the README's five-minute tour and TestTutorial docs/tutorial.md, each
// command in turn, comparing what it prints with the output block shown
// after it. TestDocCommandFlags checks the flags of every gramc command line
// the documents show against that command's --help.
//
// In a document that is run:
//
//	```sh                     commands, one a line (a line ending in \ goes
//	                          on); each must start with gramc, or be cd DIR
//	                          (the directory the commands run in); # starts
//	                          a comment
//	```sh file=NAME           not commands: a file the reader writes
//	```gram file=NAME         (and every other block with file=NAME)
//	```text                   right after a sh block: what its commands print,
//	                          standard output then standard error, compared
//	                          exactly; exit=N says the last command exits N
//	                          (0 otherwise, for every command)

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// shellWords splits a command line as sh does for the quoting the documents
// use: single and double quotes, backslashes, and # comments.
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			return words, nil
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unclosed ' in %q", line)
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, fmt.Errorf("unclosed \" in %q", line)
			}
			inWord = true
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// commandLines returns the command lines of a sh block, continuation lines
// joined, comments and blank lines dropped, each split into words.
func commandLines(t *testing.T, text string) [][]string {
	t.Helper()
	var out [][]string
	for _, line := range strings.Split(strings.ReplaceAll(text, "\\\n", " "), "\n") {
		words, err := shellWords(line)
		if err != nil {
			t.Fatal(err)
		}
		if len(words) > 0 {
			out = append(out, words)
		}
	}
	return out
}

// blockOption returns the value of key=VALUE among a block's info words.
func blockOption(ex docExample, key string) string {
	for _, a := range ex.args {
		if v, ok := strings.CutPrefix(a, key+"="); ok {
			return v
		}
	}
	return ""
}

// docRun runs the commands of a document's text in order and returns the
// problems found, each naming the file and line. cd DIR must name a
// directory in allowedDirs, which maps it to where the commands run; env,
// when set, is called before each command to set its environment. It
// returns how many commands ran.
func docRun(t *testing.T, name, text string, allowedDirs map[string]string, env func(args []string)) (problems []string, ran int) {
	t.Helper()
	blocks := docExamples(text)
	for i := 0; i < len(blocks); i++ {
		b := blocks[i]
		if b.lang != "sh" || blockOption(b, "file") != "" {
			continue
		}
		fail := func(format string, a ...any) {
			problems = append(problems, fmt.Sprintf("%s:%d: ", name, b.line)+fmt.Sprintf(format, a...))
		}
		var want *docExample
		if i+1 < len(blocks) && blocks[i+1].lang == "text" {
			want = &blocks[i+1]
		}
		wantExit := 0
		if want != nil {
			if v := blockOption(*want, "exit"); v != "" {
				fmt.Sscan(v, &wantExit)
			}
		}
		var got bytes.Buffer
		lines := commandLines(t, b.text)
		for j, args := range lines {
			switch {
			case args[0] == "cd" && len(args) == 2:
				dir, ok := allowedDirs[args[1]]
				if !ok {
					fail("cd %s: not a directory the test knows", args[1])
					return problems, ran
				}
				t.Chdir(dir)
				continue
			case args[0] != "gramc":
				fail("%q is not a gramc command", strings.Join(args, " "))
				continue
			}
			if env != nil {
				env(args)
			}
			var out, errOut bytes.Buffer
			code := Main(args[1:], strings.NewReader(""), &out, &errOut)
			ran++
			got.Write(out.Bytes())
			got.Write(errOut.Bytes())
			exit := 0
			if j == len(lines)-1 {
				exit = wantExit
			}
			if code != exit {
				fail("%s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, exit, out.String(), errOut.String())
			}
		}
		if want != nil && got.String() != want.text {
			problems = append(problems, fmt.Sprintf("%s:%d: the output shown differs from what the commands above it print:\n--- shown\n%s--- printed\n%s", name, want.line, want.text, got.String()))
		}
	}
	return problems, ran
}

// TestReadmeTour runs the commands of the README's five-minute tour in the
// repository's root, offline, and compares their output with the README's.
func TestReadmeTour(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	tour, ok := markdownSection(string(b), "## Five-minute tour")
	if !ok {
		t.Fatal(`README.md has no section "## Five-minute tour"`)
	}
	// Lines counted from the top of the README, not of the section.
	before := strings.Count(string(b[:strings.Index(string(b), tour)]), "\n")
	tour = strings.Repeat("\n", before) + tour
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	problems, ran := docRun(t, "README.md", tour, nil, nil)
	for _, p := range problems {
		t.Error(p)
	}
	if ran < 3 {
		t.Errorf("the tour ran %d commands; want a run, a check and a test at least", ran)
	}
}

// TestDocRunner checks that the runner fails: an output that differs, an
// exit code that differs, and a command that is not gramc are each
// reported.
func TestDocRunner(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("a.gram", []byte("[a:Agent {model: \"OpenAI/gpt-4o-mini\"}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := "```sh\ngramc check --color never a.gram   # a comment\n```\n\n```text\nnothing\n```\n\n" +
		"```sh\ngramc check a.gram\n```\n\n```sh\nrm -rf /\n```\n"
	problems, ran := docRun(t, "doc.md", doc, nil, nil)
	want := []string{
		"doc.md:1: gramc check --color never a.gram: exit 1, want 0",
		"doc.md:5: the output shown differs",
		"doc.md:9: gramc check a.gram: exit 1, want 0",
		`doc.md:13: "rm -rf /" is not a gramc command`,
	}
	if ran != 2 || len(problems) != len(want) {
		t.Fatalf("ran %d, problems:\n%s", ran, strings.Join(problems, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(problems[i], w) {
			t.Errorf("problem %d = %q, want it to start with %q", i, problems[i], w)
		}
	}
	if got, _ := shellWords(`gramc run x --tool a='sh t.sh a' -m "Hi, I'm \"Bob\"" # c`); !slices.Equal(got, []string{"gramc", "run", "x", "--tool", "a=sh t.sh a", "-m", `Hi, I'm "Bob"`}) {
		t.Errorf("shellWords = %q", got)
	}
}

// TestDocCommandFlags checks every gramc command line in the shell blocks of
// the documents a user reads first: each flag it uses is one its command's
// --help lists.
func TestDocCommandFlags(t *testing.T) {
	helps := gramcCommands(t)
	for _, file := range []string{"README.md", "docs/tutorial.md", "docs/cli.md", "docs/editors.md", "docs/serve.md", "CONTRIBUTING.md"} {
		b, err := os.ReadFile(filepath.Join("../..", file))
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range docExamples(string(b)) {
			if ex.lang != "sh" || blockOption(ex, "file") != "" {
				continue
			}
			for _, args := range commandLines(t, ex.text) {
				if args[0] != "gramc" {
					continue
				}
				// The command is the longest run of words that names one:
				// "gramc mcp serve", but "gramc completion" of bash.
				cmd := ""
				for w := range strings.FieldsSeq(commandWords(strings.Join(args, " "))) {
					if _, ok := helps[strings.TrimSpace(cmd+" "+w)]; !ok {
						break
					}
					cmd = strings.TrimSpace(cmd + " " + w)
				}
				help, ok := helps[cmd]
				if !ok {
					t.Errorf("%s:%d: gramc %s is no gramc command", file, ex.line, cmd)
					continue
				}
				flags := helpFlags(help)
				for _, a := range args[1:] {
					if a == "--" {
						break
					}
					if !strings.HasPrefix(a, "-") || a == "-" {
						continue
					}
					name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
					if !slices.Contains(flags, name) {
						t.Errorf("%s:%d: gramc %s has no flag %s", file, ex.line, cmd, a)
					}
				}
			}
		}
	}
}

// markdownLink is a link of a Markdown text: [text](target).
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// headingAnchor is the anchor GitHub gives a heading: lower case, spaces as
// hyphens, punctuation other than hyphens and underscores dropped.
func headingAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// markdownAnchors returns the anchors of a Markdown text's headings (outside
// fenced blocks).
func markdownAnchors(doc string) map[string]bool {
	out := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if h := strings.TrimLeft(line, "#"); !fenced && h != line && strings.HasPrefix(h, " ") {
			out[headingAnchor(h)] = true
		}
	}
	return out
}

// TestDocLinks checks the relative links of the project's Markdown
// documents: each names a file or directory that exists, and a #fragment a
// heading of the file it names.
func TestDocLinks(t *testing.T) {
	docs, _ := filepath.Glob("../../docs/*.md")
	docs = append(docs, "../../README.md", "../../CONTRIBUTING.md", "../../CHANGELOG.md", "../../editors/vscode/README.md")
	checked := 0
	for _, file := range docs {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(file, "../../")
		for _, m := range markdownLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			full := file
			if path != "" {
				full = filepath.Join(filepath.Dir(file), path)
			}
			checked++
			info, err := os.Stat(full)
			if err != nil {
				t.Errorf("%s: the link %s names no file", name, target)
				continue
			}
			if frag == "" || info.IsDir() {
				continue
			}
			linked, err := os.ReadFile(full)
			if err != nil {
				t.Fatal(err)
			}
			if !markdownAnchors(string(linked))[frag] {
				t.Errorf("%s: the link %s names no heading of %s", name, target, path)
			}
		}
	}
	if checked == 0 {
		t.Error("no relative links found")
	}
}
