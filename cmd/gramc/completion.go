package main

import (
	"embed"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/gramlang/gram/project"
)

// runCompletion runs "gramc completion SHELL", which prints the shell's
// completion script, and "gramc completion agents FILE".
func runCompletion(e *env, args []string) error {
	fs := newFlags(e, "completion")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() == 2 && fs.Arg(0) == "agents" {
		printAgentNames(e, fs.Arg(1))
		return nil
	}
	if fs.NArg() != 1 {
		return usageError("gramc completion", "name one shell: bash, zsh or fish")
	}
	if shell := fs.Arg(0); shell != "bash" && shell != "zsh" && shell != "fish" {
		return usageError("gramc completion", "unknown shell %q (want bash, zsh or fish)", shell)
	}
	if err := writeCompletion(e.stdout, fs.Arg(0), completionCommands()); err != nil {
		return usageError("gramc completion", "%v", err)
	}
	return nil
}

// printAgentNames prints the names of the agents of the file at path, one a
// line, for the completion of --agent; nothing when it cannot be read.
func printAgentNames(e *env, path string) {
	f, err := readInput(e, path)
	if err != nil {
		return
	}
	for _, name := range project.CheckText(f).Program.AgentNames() {
		fmt.Fprintln(e.stdout, name)
	}
}

// compCommand is a command as completion sees it.
type compCommand struct {
	Name    string // "check", "mcp import"
	Summary string
	Flags   []compFlag
}

// compFlag is a flag as completion sees it.
type compFlag struct {
	Name, Usage string
	// Value says what the flag takes: "" for none (a boolean), "file" for a
	// file name, "word" for text completion cannot guess, "agent" for an
	// agent's name, or "list" for one of Values.
	Value  string
	Values []string
}

// valueList finds the values a flag's usage lists: "text, json or sarif".
var valueList = regexp.MustCompile(`\b((?:[a-z][a-z0-9-]*, )+[a-z][a-z0-9-]* or [a-z][a-z0-9-]*)\b`)

// completionCommands describes every command with the flags it defines: each
// command is run with --help (which has no other effect) to see its flag set.
func completionCommands() []compCommand {
	var out []compCommand
	add := func(name, summary string, run func(*env, []string) error, args ...string) {
		var fs *flag.FlagSet
		e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
			onFlags: func(f *flag.FlagSet) { fs = f }}
		run(e, append(args, "--help"))
		c := compCommand{Name: name, Summary: summary}
		if fs != nil {
			fs.VisitAll(func(f *flag.Flag) { c.Flags = append(c.Flags, describeFlag(f)) })
		}
		out = append(out, c)
	}
	subs := map[string][]command{"mcp": mcpCommands, "runs": runsCommands}
	for _, c := range append(commands(), versionCommand) {
		if len(subs[c.name]) == 0 {
			add(c.name, c.summary, c.run)
		}
		for _, sub := range subs[c.name] {
			add(c.name+" "+sub.name, sub.summary, sub.run)
		}
	}
	return out
}

// describeFlag says what f takes, from its type and usage.
func describeFlag(f *flag.Flag) compFlag {
	c := compFlag{Name: f.Name, Usage: strings.ReplaceAll(f.Usage, "`", "")}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return c
	}
	argName, _ := flag.UnquoteUsage(f)
	switch {
	case f.Name == "agent":
		c.Value = "agent"
	case argName == "FILE" || argName == "DIR":
		c.Value = "file"
	case valueList.MatchString(f.Usage):
		c.Value = "list"
		m := valueList.FindStringSubmatch(f.Usage)[1]
		c.Values = strings.Split(strings.Replace(m, " or ", ", ", 1), ", ")
	default:
		c.Value = "word"
	}
	return c
}

// completionScripts are the templates of the scripts, by shell, executed
// with a [compScript].
//
//go:embed completion/*.tmpl
var completionScripts embed.FS

// compScript is what a script template is given: the commands, the words
// that may follow "gramc" (the commands and help), the top-level command
// names and the commands that have subcommands.
type compScript struct {
	Commands   []compCommand
	Top, Names []string
	Parents    []compParent
}

// compParent is a command with subcommands: "mcp" (import, serve).
type compParent struct {
	Name, Summary string
	Subs          []string
}

// writeCompletion writes the completion script of shell for the commands
// cmds to w.
func writeCompletion(w io.Writer, shell string, cmds []compCommand) error {
	var names []string
	var parents []compParent
	cat := func(parts ...string) string { return strings.Join(parts, "") }
	t, err := template.New(shell+".tmpl").Funcs(template.FuncMap{
		"join": strings.Join,
		"dash": dash,
		"q":    func(parts ...string) string { return strconv.Quote(cat(parts...)) },
		"zq":   func(parts ...string) string { return "'" + strings.ReplaceAll(cat(parts...), "'", "''") + "'" },
		"fq":   func(s string) string { return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'" },
		"subs": func(word string) string {
			return strings.Join(parents[slices.IndexFunc(parents, func(p compParent) bool { return p.Name == word })].Subs, " ")
		},
	}).ParseFS(completionScripts, "completion/"+shell+".tmpl")
	if err != nil {
		return err
	}
	for _, c := range cmds {
		if !slices.Contains(names, c.Word()) {
			names = append(names, c.Word())
		}
		if c.Sub() == "" {
			continue
		}
		if len(parents) == 0 || parents[len(parents)-1].Name != c.Word() {
			parents = append(parents, compParent{Name: c.Word(), Summary: commandSummary(c.Word())})
		}
		p := &parents[len(parents)-1]
		p.Subs = append(p.Subs, c.Sub())
	}
	return t.Execute(w, compScript{Commands: cmds, Top: append(slices.Clone(names), "help"), Names: names, Parents: parents})
}

// commandSummary returns the summary of the command name.
func commandSummary(name string) string {
	for _, c := range commands() {
		if c.name == name {
			return c.summary
		}
	}
	return ""
}

// Word is the command's first word: "mcp" of "mcp import".
func (c compCommand) Word() string {
	w, _, _ := strings.Cut(c.Name, " ")
	return w
}

// Sub is the subcommand: "import" of "mcp import", "" of "check".
func (c compCommand) Sub() string {
	_, sub, _ := strings.Cut(c.Name, " ")
	return sub
}

// Dashed are the command's flags as users write them (see dash).
func (c compCommand) Dashed() []string {
	var out []string
	for _, f := range c.Flags {
		out = append(out, dash(f.Name))
	}
	return out
}

// dash writes a flag as users write it: -l for one letter, else --name.
func dash(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
