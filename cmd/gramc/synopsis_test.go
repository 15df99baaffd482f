package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The synopsis block of docs/cli.md (the first fenced block of its
// "## Synopsis" section, once the README's) must name every flag each command's --help lists, and no other.
// Both sides are read as a user reads them: the flags of a command are the
// ones `gramc CMD --help` prints under "Flags:", and the commands are those
// of gramc's command table plus the subcommands a command's own usage lines
// name (gramc mcp import, gramc mcp serve). So a flag added to a command, or
// a command added to gramc, fails this test until docs/cli.md shows it; and every command has a
// "## gramc COMMAND" section there.

// cliDoc is the command line reference, relative to the repository's root.
const cliDoc = "docs/cli.md"

// synopsis is one command's synopsis in docs/cli.md.
type synopsis struct {
	cmd   string // "check", "mcp import"
	flags []string
}

// readmeSynopses returns the synopses of the synopsis block of docs/cli.md: each
// line starting with "gramc" begins one, indented lines continue it.
func readmeSynopses(t *testing.T) []synopsis {
	t.Helper()
	blocks := docFileSection(t, cliDoc, "## Synopsis")
	if len(blocks) == 0 {
		t.Fatal(cliDoc + `: the "## Synopsis" section has no fenced synopsis block`)
	}
	var out []synopsis
	var text []string
	flush := func() {
		if len(text) == 0 {
			return
		}
		line := strings.Join(text, " ")
		text = nil
		out = append(out, synopsis{cmd: commandWords(line), flags: flagNames(line)})
	}
	for _, line := range strings.Split(blocks[0].text, "\n") {
		switch {
		case strings.HasPrefix(line, "gramc "):
			flush()
			text = []string{line}
		case strings.TrimSpace(line) != "" && len(text) > 0:
			text = append(text, line)
		}
	}
	flush()
	return out
}

// commandWords returns the command a usage line names: the words after
// "gramc" up to the first flag, argument or bracket ("mcp import").
func commandWords(line string) string {
	var words []string
	for _, w := range strings.Fields(line)[1:] {
		if !regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(w) {
			break
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

// flagRef is a flag as a synopsis writes it: -x or --name, after a space or
// one of ( [ |.
var flagRef = regexp.MustCompile(`(?:^|[\s(\[|])--?([a-zA-Z][\w-]*)`)

// flagNames returns the sorted, distinct flag names a synopsis mentions.
func flagNames(text string) []string {
	var out []string
	for _, m := range flagRef.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// helpFlag is the start of a flag's line in the "Flags:" part of --help:
// indented, then one or more flags separated by commas.
var helpFlag = regexp.MustCompile(`^\s+(-{1,2}[a-zA-Z][\w-]*(?:,\s*-{1,2}[a-zA-Z][\w-]*)*)`)

// commandHelp runs `gramc CMD... --help` and returns its output.
func commandHelp(t *testing.T, cmd string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	args := append(strings.Fields(cmd), "--help")
	if code := Main(args, nil, &out, &errOut); code != exitOK {
		t.Fatalf("gramc %s --help: exit %d\n%s", cmd, code, errOut.String())
	}
	return out.String()
}

// flagsHeading is the line after which --help lists the flags.
var flagsHeading = regexp.MustCompile(`(?m)^(?:Flags|Options):\n`)

// helpFlags returns the sorted flag names of a --help text: the flags listed
// after its "Flags:" (or "Options:") line.
func helpFlags(help string) []string {
	loc := flagsHeading.FindStringIndex(help)
	if loc == nil {
		return nil
	}
	list := help[loc[1]:]
	var out []string
	for _, line := range strings.Split(list, "\n") {
		m := helpFlag.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, f := range strings.Split(m[1], ",") {
			out = append(out, strings.TrimLeft(strings.TrimSpace(f), "-"))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// helpSubcommands returns the subcommands a command's usage lines name:
// "gramc mcp import ..." in the help of mcp gives "mcp import".
func helpSubcommands(cmd, help string) []string {
	var out []string
	for _, line := range strings.Split(help, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "Usage:")
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "gramc "+cmd+" ") {
			continue
		}
		if w := commandWords(line); w != cmd && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// gramcCommands returns every command and subcommand with its --help text.
func gramcCommands(t *testing.T) map[string]string {
	t.Helper()
	helps := map[string]string{}
	var visit func(cmd string)
	visit = func(cmd string) {
		if _, seen := helps[cmd]; seen {
			return
		}
		help := commandHelp(t, cmd)
		helps[cmd] = help
		for _, sub := range helpSubcommands(cmd, help) {
			visit(sub)
		}
	}
	for _, c := range commands() {
		visit(c.name)
	}
	return helps
}

// synopsisMismatch compares a synopsis's flags with --help's and
// returns what is wrong, or "".
func synopsisMismatch(cmd string, readme, help []string) string {
	var missing, extra []string
	for _, f := range help {
		if !slices.Contains(readme, f) {
			missing = append(missing, dashed(f))
		}
	}
	for _, f := range readme {
		if !slices.Contains(help, f) {
			extra = append(extra, dashed(f))
		}
	}
	var b strings.Builder
	if len(missing) > 0 {
		fmt.Fprintf(&b, cliDoc+"'s synopsis of gramc %s lacks %s, which gramc %s --help lists", cmd, strings.Join(missing, ", "), cmd)
	}
	if len(extra) > 0 {
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, cliDoc+"'s synopsis of gramc %s names %s, which gramc %s --help does not list", cmd, strings.Join(extra, ", "), cmd)
	}
	return b.String()
}

// dashed writes a flag name as a user types it.
func dashed(f string) string {
	if len(f) == 1 {
		return "-" + f
	}
	return "--" + f
}

// TestReadmeSynopses checks that the synopsis of every gramc command in
// docs/cli.md (the README's, until it moved there) names exactly the flags
// that the command's --help lists, that every command (and subcommand) has
// a synopsis, and that every command has a "## gramc COMMAND" section.
func TestReadmeSynopses(t *testing.T) {
	helps := gramcCommands(t)
	seen := map[string]bool{}
	for _, s := range readmeSynopses(t) {
		help, ok := helps[s.cmd]
		if !ok {
			t.Errorf("%s has a synopsis of gramc %s, which is no gramc command", cliDoc, s.cmd)
			continue
		}
		if seen[s.cmd] {
			t.Errorf("%s has two synopses of gramc %s", cliDoc, s.cmd)
		}
		seen[s.cmd] = true
		flags := helpFlags(help)
		if flags == nil && flagsHeading.MatchString(help) {
			t.Errorf("gramc %s --help: no flags read from its Flags: section", s.cmd)
		}
		if msg := synopsisMismatch(s.cmd, s.flags, flags); msg != "" {
			t.Error(msg)
		}
	}
	for cmd, help := range helps {
		// A command whose help only points at its subcommands ("gramc mcp")
		// needs no synopsis of its own.
		if !seen[cmd] && (helpFlags(help) != nil || len(helpSubcommands(cmd, help)) == 0) {
			t.Errorf("%s has no synopsis of gramc %s", cliDoc, cmd)
		}
	}
	doc, err := os.ReadFile(filepath.Join("../..", cliDoc))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands() {
		if _, ok := markdownSection(string(doc), "## gramc "+c.name); !ok {
			t.Errorf("%s has no section \"## gramc %s\"", cliDoc, c.name)
		}
	}
}

// TestSynopsisMismatch checks the comparison the README test relies on:
// flags read from a synopsis and from --help, and the message naming the
// missing and extra ones.
func TestSynopsisMismatch(t *testing.T) {
	got := flagNames("gramc run FILE [-m MESSAGE]... [--record F | --replay F] (--mcp C|--mcp-url U) [--format text|json]")
	want := []string{"format", "m", "mcp", "mcp-url", "record", "replay"}
	if !slices.Equal(got, want) {
		t.Errorf("flagNames = %q, want %q", got, want)
	}
	help := "Usage: gramc x\n\nSee --other in the text.\n\nFlags:\n  -a\tthe a\n  -bee string\n    \tthe bee\n  -c, --cee\n    \tboth\n"
	if got, want := helpFlags(help), []string{"a", "bee", "c", "cee"}; !slices.Equal(got, want) {
		t.Errorf("helpFlags = %q, want %q", got, want)
	}
	if got := helpFlags("Usage: gramc y\n\nOptions:\n  --why   because\n"); !slices.Equal(got, []string{"why"}) {
		t.Errorf("helpFlags with Options: = %q", got)
	}
	if got := helpFlags("Usage: gramc z\n"); got != nil {
		t.Errorf("helpFlags without a flags section = %q", got)
	}
	msg := synopsisMismatch("x", []string{"a", "old"}, []string{"a", "bee", "c"})
	want2 := "docs/cli.md's synopsis of gramc x lacks --bee, -c, which gramc x --help lists; docs/cli.md's synopsis of gramc x names --old, which gramc x --help does not list"
	if msg != want2 {
		t.Errorf("synopsisMismatch = %q,\nwant %q", msg, want2)
	}
	if msg := synopsisMismatch("x", []string{"a"}, []string{"a"}); msg != "" {
		t.Errorf("synopsisMismatch of equal sets = %q", msg)
	}
	if got := helpSubcommands("mcp", "Usage: gramc mcp import (--mcp C) [flags]\n       gramc mcp serve FILE\n"); !slices.Equal(got, []string{"mcp import", "mcp serve"}) {
		t.Errorf("helpSubcommands = %q", got)
	}
}

// TestDiagnosticStreams checks what docs/cli.md says of where diagnostics
// go: check writes them to standard output, the other commands that read a
// gram file to standard error.
func TestDiagnosticStreams(t *testing.T) {
	t.Chdir(t.TempDir())
	const src = "[a:Agent {model: \"OpenAI/gpt-4o-mini\"}]\n[t:Test {agent: a} | (:User {says: \"Hi\"})]\n[b | c\n"
	if err := os.WriteFile("bad.gram", []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "bad.gram:3:"
	for _, tc := range []struct {
		args   []string
		stdout bool
	}{
		{[]string{"check", "bad.gram"}, true},
		{[]string{"parse", "bad.gram"}, false},
		{[]string{"schema", "bad.gram"}, false},
		{[]string{"fmt", "bad.gram"}, false},
		{[]string{"run", "bad.gram", "-m", "hi"}, false},
		{[]string{"test", "bad.gram"}, false},
		{[]string{"mcp", "serve", "bad.gram"}, false},
	} {
		var out, errOut bytes.Buffer
		code := Main(tc.args, strings.NewReader(""), &out, &errOut)
		name := "gramc " + strings.Join(tc.args, " ")
		if code != exitError {
			t.Errorf("%s: exit %d, want %d\n%s%s", name, code, exitError, out.String(), errOut.String())
		}
		to, other := &out, &errOut
		where := "standard output"
		if !tc.stdout {
			to, other, where = &errOut, &out, "standard error"
		}
		if !strings.Contains(to.String(), want) {
			t.Errorf("%s: no diagnostic on %s:\n%s", name, where, to.String())
		}
		if strings.Contains(other.String(), want) {
			t.Errorf("%s: a diagnostic outside %s:\n%s", name, where, other.String())
		}
	}
}
