package main

// TestLanguageDoc checks every example of docs/language.md by running gramc
// on it, so the language reference cannot say what the toolchain does not do.
//
// The examples are the document's fenced blocks, and the words after the
// opening fence (its info string) say what is checked:
//
//	```gram                    the example checks clean: gramc check reports
//	                           no diagnostic at all, not even a warning
//	```gram check=a,b          gramc check reports diagnostics with exactly
//	                           the codes a and b (each at least once) and no
//	                           other code
//	```gram file=x_test.gram   the example is saved as x_test.gram instead of
//	                           example.gram; combines with check=
//	```gram target=gemini      the example is checked with --target gemini
//	                           (targets separated by commas); combines with
//	                           check=
//	```gram package=DIR        the example is saved in the directory DIR,
//	                           with the other examples of DIR; combines with
//	                           file= and check=
//	```json gramc schema ARGS  the output of gramc schema ARGS on the last
//	                           gram example, compared as JSON values
//	```json package=DIR file=F a file the gram examples after it read (an
//	                           mcp.json), saved as DIR/F and not checked
//	```text gramc check        the text gramc check prints for the last gram
//	                           example, compared exactly
//
// Other blocks (```sh, plain ```) are not examples. All examples are saved in
// a directory of its own (a package of one file), but a NAME_test.gram
// example is saved beside the last example saved as NAME.gram and checked
// with it, and the examples with package=DIR are saved in the directory DIR
// (given with their path) and checked as one package.
//
// Every code of gramc's SARIF rules (the catalogues of the packages that
// report them, sarifCatalogue) and every code the parser and the lexer
// report (read from their sources, so a new code cannot be missed) must have a check=
// example; the test names those that lack one. A code no example can show
// (exampleExempt) must at least be named in the document.
//
// TestLanguageDocProperties checks the other direction: every property the
// compiler knows (as it lists them in its unknown-property help) is described
// in the document's section for that declaration, and every built-in type and
// alias in its table of types.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/format/inplace"
	"github.com/gramlang/gram/schema"
)

// docExample is one fenced block of a document.
type docExample struct {
	line int    // the line of the opening fence, 1-based
	lang string // gram, json, text, ...
	args []string
	text string
}

// docExamples returns the fenced blocks of a Markdown text.
func docExamples(text string) []docExample {
	var out []docExample
	var cur *docExample
	var body []string
	for i, line := range strings.Split(text, "\n") {
		if cur == nil {
			if rest, ok := strings.CutPrefix(line, "```"); ok && !strings.HasPrefix(rest, "`") {
				f := strings.Fields(rest)
				cur = &docExample{line: i + 1}
				if len(f) > 0 {
					cur.lang, cur.args = f[0], f[1:]
				}
				body = nil
			}
			continue
		}
		// A closing fence is indented by three spaces at most, as in
		// CommonMark: a gram fenced string's closing ``` further in is text.
		if indent := len(line) - len(strings.TrimLeft(line, " ")); indent <= 3 && strings.TrimSpace(line) == "```" {
			cur.text = strings.Join(body, "\n") + "\n"
			out = append(out, *cur)
			cur = nil
			continue
		}
		body = append(body, line)
	}
	return out
}

// exampleOptions reads the key=value words of a gram example's info string:
// the file name, its package directory, the codes expected and the extra
// flags of gramc check.
func exampleOptions(t *testing.T, ex docExample) (file, pkg string, codes, flags []string) {
	file = "example.gram"
	for _, a := range ex.args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "file":
			file = v
		case "package":
			pkg = v
		case "check":
			codes = strings.Split(v, ",")
		case "target":
			flags = append(flags, "--target", v)
		default:
			t.Errorf("docs/language.md:%d: unknown example option %q (want check=CODE,..., file=NAME, package=DIR or target=NAME,...)", ex.line, a)
		}
	}
	slices.Sort(codes)
	return file, pkg, slices.Compact(codes), flags
}

// checkCodes runs gramc check --format json (with flags) on a file and
// returns the sorted, distinct codes of its diagnostics.
func checkCodes(t *testing.T, file string, flags ...string) ([]string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	Main(slices.Concat([]string{"check", "--format", "json"}, flags, []string{file}), nil, &out, &errOut)
	var report struct {
		Files []struct {
			Diagnostics []struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"diagnostics"`
		} `json:"files"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		t.Fatalf("gramc check --format json %s: %v\n%s%s", file, err, out.String(), errOut.String())
	}
	var codes, msgs []string
	for _, f := range report.Files {
		for _, d := range f.Diagnostics {
			codes = append(codes, d.Code)
			msgs = append(msgs, d.Code+": "+d.Message)
		}
	}
	slices.Sort(codes)
	return slices.Compact(codes), strings.Join(msgs, "\n")
}

// sourceCodes returns the diagnostic codes the non-test Go sources of dirs
// report: the first argument of diag.Errorf, Warningf, Infof and Hintf,
// written as a literal or as a constant Code... declared in those
// sources.
func sourceCodes(t *testing.T, dirs ...string) []string {
	t.Helper()
	call := regexp.MustCompile(`diag\.(?:Errorf|Warningf|Infof|Hintf)\((?:"([a-z][a-z0-9-]*)"|(?:\w+\.)?(Code\w+))`)
	decl := regexp.MustCompile(`\b(Code\w+)\s*=\s*"([a-z][a-z0-9-]*)"`)
	consts := map[string]string{}
	var srcs []string
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			srcs = append(srcs, string(b))
			for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
				consts[m[1]] = m[2]
			}
		}
	}
	var out []string
	for _, src := range srcs {
		for _, m := range call.FindAllStringSubmatch(src, -1) {
			switch code, ok := consts[m[2]]; {
			case m[1] != "":
				out = append(out, m[1])
			case ok:
				out = append(out, code)
			default:
				t.Errorf("diag.Errorf(%s...): no constant %s in %v", m[2], m[2], dirs)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestSARIFCatalogue checks that the codes gramc describes in its SARIF
// rules are every code the lexer, the parser, the compiler and the bindings
// file report (read from their sources, so a new code cannot be missed),
// and gramc's own, each once.
func TestSARIFCatalogue(t *testing.T) {
	have := map[string]bool{}
	for _, c := range sarifCatalogue() {
		if have[c.Code] {
			t.Errorf("code %s is described twice", c.Code)
		}
		have[c.Code] = true
		if c.Summary == "" || c.Severity == 0 {
			t.Errorf("code %s has no summary or no severity", c.Code)
		}
	}
	for _, code := range sourceCodes(t, "../../grammar", "../../parser", "../../schema", "../../project", "../../diag", ".") {
		if !have[code] {
			t.Errorf("code %s is reported but not described in the SARIF rules", code)
		}
	}
}

// exampleExempt are codes that no checked example can show, with the
// reason: a list cut short, and input a Markdown document cannot carry. The
// document must still name each of them that the catalogue has.
var exampleExempt = map[string]string{
	diag.CodeTooManyDiagnostics: "it closes a list of diagnostics that was cut short, which gramc check on one example does not do",
	"invalid-utf8":              "a Markdown document is UTF-8 text and cannot hold the bytes",
	"binary-file":               "a Markdown document is text and cannot hold binary data",
	inplace.CodeLeftoverBackup:  "a Markdown example is not a file beside which gramc fmt -w was interrupted",
}

// docCatalogue returns every diagnostic code that needs an example: the
// codes gramc describes in its SARIF rules and the codes reported in the
// parser's and lexer's sources, less the exempt,
// and the exempt codes of that catalogue.
func docCatalogue(t *testing.T) (codes, exempt []string) {
	codes = sourceCodes(t, "../../parser", "../../grammar")
	if len(codes) == 0 {
		t.Fatal("no diagnostic codes found in the parser's and lexer's sources")
	}
	for _, c := range sarifCatalogue() {
		codes = append(codes, c.Code)
	}
	codes = slices.DeleteFunc(codes, func(c string) bool {
		if exampleExempt[c] != "" {
			exempt = append(exempt, c)
			return true
		}
		return false
	})
	slices.Sort(codes)
	slices.Sort(exempt)
	return slices.Compact(codes), slices.Compact(exempt)
}

// checkLanguageDoc checks the examples of a document's text and returns the
// problems found, each naming the document (name) and the example's line.
func checkLanguageDoc(t *testing.T, name, doc string, catalogue []string) []string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	var problems []string
	fail := func(ex docExample, format string, a ...any) {
		problems = append(problems, name+":"+strconv.Itoa(ex.line)+": "+fmt.Sprintf(format, a...))
	}
	shown := map[string]bool{}
	written := map[string]string{} // the directories of the examples, by file name
	last := ""
	examples := 0
	for _, ex := range docExamples(doc) {
		switch {
		case ex.lang == "gram":
			examples++
			file, pkg, want, flags := exampleOptions(t, ex)
			// Each example is a package of its own, in a directory of its
			// own, but for a NAME_test.gram one (beside NAME.gram) and
			// those of one package=DIR.
			switch sub, ok := written[schema.SubjectPath(file)]; {
			case pkg != "":
				chdir(t, dir)
				if err := os.MkdirAll(pkg, 0o755); err != nil {
					t.Fatal(err)
				}
				file = filepath.Join(pkg, file)
			case ok:
				chdir(t, sub)
			default:
				sub = filepath.Join(dir, "ex"+strconv.Itoa(examples))
				if err := os.Mkdir(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				chdir(t, sub)
			}
			if err := os.WriteFile(file, []byte(ex.text), 0o644); err != nil {
				t.Fatal(err)
			}
			if wd, err := os.Getwd(); err == nil && pkg == "" {
				written[file] = wd
			}
			last = file
			got, msgs := checkCodes(t, file, flags...)
			if !slices.Equal(got, want) {
				if len(want) == 0 {
					fail(ex, "the example should check clean, but gramc check reports:\n%s", msgs)
				} else {
					fail(ex, "the example should report %s, but gramc check reports %s:\n%s", strings.Join(want, ", "), orNone(got), msgs)
				}
			}
			for _, c := range want {
				shown[c] = true
			}
		case ex.lang == "json" && len(ex.args) > 0 && strings.HasPrefix(ex.args[0], "package="):
			file, pkg, codes, flags := exampleOptions(t, ex)
			if len(codes)+len(flags) > 0 || !slices.ContainsFunc(ex.args, func(a string) bool { return strings.HasPrefix(a, "file=") }) {
				fail(ex, "a json example saved for the others takes package=DIR file=NAME only")
				continue
			}
			chdir(t, dir)
			path := filepath.Join(pkg, file)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(ex.text), 0o644); err != nil {
				t.Fatal(err)
			}
		case ex.lang == "json" && len(ex.args) > 1 && ex.args[0] == "gramc" && ex.args[1] == "schema":
			if last == "" {
				fail(ex, "a schema output before any gram example")
				continue
			}
			var out, errOut bytes.Buffer
			args := append(slices.Clone(ex.args[1:]), last)
			if code := Main(args, nil, &out, &errOut); code != exitOK {
				fail(ex, "gramc %s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
				continue
			}
			var want, got any
			if err := json.Unmarshal([]byte(ex.text), &want); err != nil {
				fail(ex, "the block is not JSON: %v", err)
				continue
			}
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				fail(ex, "gramc %s differs from the document (-document +gramc):\n%s", strings.Join(args, " "), diff)
			}
		case ex.lang == "text" && slices.Equal(ex.args, []string{"gramc", "check"}):
			var out, errOut bytes.Buffer
			Main([]string{"check", last}, nil, &out, &errOut)
			if diff := cmp.Diff(ex.text, out.String()); diff != "" {
				fail(ex, "gramc check %s differs from the document (-document +gramc):\n%s", last, diff)
			}
		}
	}
	if examples == 0 {
		problems = append(problems, name+": no gram examples")
	}
	var missing []string
	for _, c := range catalogue {
		if !shown[c] {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		problems = append(problems, name+" has no example (```gram check=CODE) of the diagnostic codes "+strings.Join(missing, ", "))
	}
	return problems
}

// chdir changes the working directory of a test that called t.Chdir.
func chdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
}

func orNone(codes []string) string {
	if len(codes) == 0 {
		return "none"
	}
	return strings.Join(codes, ", ")
}

// TestLanguageDoc checks docs/language.md; see the top of this file.
func TestLanguageDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	codes, exempt := docCatalogue(t)
	for _, p := range checkLanguageDoc(t, "docs/language.md", string(doc), codes) {
		t.Error(p)
	}
	for _, code := range exempt {
		if !strings.Contains(string(doc), "`"+code+"`") {
			t.Errorf("docs/language.md does not mention the diagnostic code %s, which has no example because %s", code, exampleExempt[code])
		}
	}
}

// TestLanguageDocChecker checks that the document checker can fail: a
// clean example that has an error, an example whose stated code is not the
// one reported, a schema that differs, and a code without an example are
// each reported.
func TestLanguageDocChecker(t *testing.T) {
	doc := "```gram\n[a:Agent {model: \"OpenAI/gpt-4o-mini\"}]\n```\n\n" +
		"```gram check=unknown-type\n[a:Agent {model: \"OpenAI/gpt-4o-mini\"}]\n```\n\n" +
		"```gram\n[t:Tool {description: \"T\"} | (x::String)==>(::String)]\n```\n\n" +
		"```json gramc schema --format jsonschema --tool t\n{\"type\": \"object\"}\n```\n"
	problems := checkLanguageDoc(t, "docs/language.md", doc, []string{"missing-instruction", "unknown-type", "record-cycle"})
	want := []string{
		"docs/language.md:1: the example should check clean",
		"docs/language.md:5: the example should report unknown-type, but gramc check reports missing-instruction",
		"docs/language.md:13: gramc schema --format jsonschema --tool t example.gram differs",
		"docs/language.md has no example (```gram check=CODE) of the diagnostic codes missing-instruction, record-cycle",
	}
	if len(problems) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(problems), len(want), strings.Join(problems, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(problems[i], w) {
			t.Errorf("problem %d = %q, want it to start with %q", i, problems[i], w)
		}
	}
}

// propertyProbe has an unknown property on every kind of declaration and
// element, so that the compiler lists the properties each one has.
const propertyProbe = `[a:Agent {model: "OpenAI/gpt-4o-mini", instruction: "x", zzzzzzzzzz: 1} | t]
[t:Tool {description: "d", zzzzzzzzzz: 1} | (p::String {zzzzzzzzzz: 1})==>(::String {zzzzzzzzzz: 1})]
[R:Record {zzzzzzzzzz: 1} | (f::String {zzzzzzzzzz: 1})]
[x:Test {agent: a, zzzzzzzzzz: 1} |
  (:User {says: "hi", zzzzzzzzzz: 1}),
  [:Call {tool: t, zzzzzzzzzz: 1} | (p {any: true, zzzzzzzzzz: 1})],
  (:NoCall {tool: t, zzzzzzzzzz: 1}),
  (:Answer {contains: "x", zzzzzzzzzz: 1}),
  (:Rubric {judge: a, criterion: "c", zzzzzzzzzz: 1})
]
`

// propertySections maps what the compiler calls a declaration or element
// in its unknown-property help to the section of docs/language.md that must
// document its properties.
var propertySections = map[string]string{
	"an agent":            "### Agent properties",
	"a tool":              "## Tools",
	"a parameter":         "## Parameter properties",
	"a record field":      "## Parameter properties",
	"a return type":       "## Signatures",
	"a record":            "## Records",
	"a test":              "## Agent tests",
	"a user turn":         "## Agent tests",
	"a Call":              "## Agent tests",
	"a NoCall":            "## Agent tests",
	"an Answer":           "## Agent tests",
	"a Rubric":            "## Agent tests",
	"an argument matcher": "## Agent tests",
}

// docSection returns the text of a section of a Markdown document, from its
// heading to the next heading of the same or a higher level.
func docSection(doc, heading string) string {
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		return ""
	}
	text := doc[i+len(heading)+2:]
	level := strings.IndexByte(heading, ' ')
	if j := regexp.MustCompile(`(?m)^#{1,` + strconv.Itoa(level) + `} `).FindStringIndex(text); j != nil {
		text = text[:j[0]]
	}
	return text
}

// TestLanguageDocProperties checks that docs/language.md documents every
// property the compiler knows, each in its section, and every built-in type
// and alias in the table of types: a property or type added to the language
// fails this test until the reference describes it.
func TestLanguageDocProperties(t *testing.T) {
	b, err := os.ReadFile("../../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	t.Chdir(t.TempDir())
	if err := os.WriteFile("probe.gram", []byte(propertyProbe), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	Main([]string{"check", "--format", "json", "probe.gram"}, nil, &out, &errOut)
	var report struct {
		Files []struct {
			Diagnostics []struct {
				Code   string `json:"code"`
				Detail string `json:"detail"`
			} `json:"diagnostics"`
		} `json:"files"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		t.Fatalf("%v\n%s%s", err, out.String(), errOut.String())
	}
	re := regexp.MustCompile(`^the properties of (.+) are (.+)$`)
	seen := map[string]bool{}
	for _, f := range report.Files {
		for _, d := range f.Diagnostics {
			m := re.FindStringSubmatch(d.Detail)
			if d.Code != schema.CodeUnknownProperty || m == nil {
				continue
			}
			seen[m[1]] = true
			heading, ok := propertySections[m[1]]
			if !ok {
				t.Errorf("the compiler knows properties of %s (%s), which docs/language.md has no section for; add it to propertySections", m[1], m[2])
				continue
			}
			section := docSection(doc, heading)
			if section == "" {
				t.Errorf("docs/language.md has no section %q", heading)
				continue
			}
			for _, p := range strings.Split(m[2], ", ") {
				if !strings.Contains(section, "`"+p+"`") && !strings.Contains(section, "`"+p+":") {
					t.Errorf("docs/language.md, section %q, does not describe property %s of %s", heading, p, m[1])
				}
			}
		}
	}
	for what := range propertySections {
		if !seen[what] {
			t.Errorf("the probe file gave no list of the properties of %s", what)
		}
	}
	types := docSection(doc, "## Types")
	for _, ty := range schema.BuiltinTypes {
		if !strings.Contains(types, "`"+ty+"`") {
			t.Errorf("docs/language.md, section \"## Types\", does not describe type %s", ty)
		}
	}
}

// TestLanguageDocSeverities checks that the reference of diagnostics marks
// each code with the severity it is reported at: "(warning)" or
// "(information)" after the code, and nothing for an error.
func TestLanguageDocSeverities(t *testing.T) {
	doc, err := os.ReadFile("../../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	severity := map[string]diag.Severity{}
	for _, c := range sarifCatalogue() {
		severity[c.Code] = c.Severity
	}
	entry := regexp.MustCompile("(?m)^\\*\\*`([a-z-]+)`\\*\\*(?: \\((warning|information)\\))? —")
	entries := entry.FindAllStringSubmatch(string(doc), -1)
	if len(entries) < 50 {
		t.Fatalf("%d entries of codes found in docs/language.md; the pattern no longer reads them", len(entries))
	}
	for _, m := range entries {
		want, ok := severity[m[1]]
		if !ok {
			continue
		}
		marked := map[string]diag.Severity{"": diag.Error, "warning": diag.Warning, "information": diag.Info}[m[2]]
		if marked != want {
			t.Errorf("docs/language.md: %s is marked %q, but it is reported as %v", m[1], m[2], want)
		}
	}
}
