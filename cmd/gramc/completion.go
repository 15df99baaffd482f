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
	args, err := parseFlags(e, fs, args)
	if err != nil {
		return err
	}
	if len(args) == 2 && args[0] == "agents" {
		printAgentNames(e, args[1])
		return nil
	}
	if len(args) != 1 {
		return usageError("gramc completion", "name one shell: bash, zsh or fish")
	}
	if shell := args[0]; shell != "bash" && shell != "zsh" && shell != "fish" {
		return usageError("gramc completion", "unknown shell %q (want bash, zsh or fish)", shell)
	}
	if err := writeCompletion(e.stdout, args[0], completionScript()); err != nil {
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
	Name string // "check", "mcp import"
	// Word is the command's first word ("mcp" of "mcp import") and Sub
	// its subcommand ("import"; "" of "check").
	Word, Sub string
	Summary   string
	Flags     []compFlag
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

// completionScript describes every command with the flags it defines: each
// command is run with --help (which has no other effect) to see its flag
// set.
func completionScript() compScript {
	var sc compScript
	add := func(word, sub, summary string, run func(*env, []string) error) {
		var fs *flag.FlagSet
		e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
			onFlags: func(f *flag.FlagSet) { fs = f }}
		run(e, []string{"--help"})
		c := compCommand{Name: strings.TrimSpace(word + " " + sub), Word: word, Sub: sub, Summary: summary}
		if fs != nil {
			fs.VisitAll(func(f *flag.Flag) { c.Flags = append(c.Flags, describeFlag(f)) })
		}
		sc.Commands = append(sc.Commands, c)
	}
	subs := map[string][]command{"mcp": mcpCommands, "runs": runsCommands}
	for _, c := range append(commands(), versionCommand) {
		sc.Names = append(sc.Names, c.name)
		if len(subs[c.name]) == 0 {
			add(c.name, "", c.summary, c.run)
			continue
		}
		p := compParent{Name: c.name, Summary: c.summary}
		for _, sub := range subs[c.name] {
			add(c.name, sub.name, sub.summary, sub.run)
			p.Subs = append(p.Subs, sub.name)
		}
		sc.Parents = append(sc.Parents, p)
	}
	sc.Top = append(slices.Clone(sc.Names), "help")
	return sc
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
// of sc to w.
func writeCompletion(w io.Writer, shell string, sc compScript) error {
	cat := func(parts ...string) string { return strings.Join(parts, "") }
	t, err := template.New(shell+".tmpl").Funcs(template.FuncMap{
		"join": strings.Join,
		"dash": dash,
		"q":    func(parts ...string) string { return strconv.Quote(cat(parts...)) },
		"zq":   func(parts ...string) string { return "'" + strings.ReplaceAll(cat(parts...), "'", "''") + "'" },
		"fq":   func(s string) string { return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'" },
		"subs": func(word string) string {
			return strings.Join(sc.Parents[slices.IndexFunc(sc.Parents, func(p compParent) bool { return p.Name == word })].Subs, " ")
		},
	}).ParseFS(completionScripts, "completion/"+shell+".tmpl")
	if err != nil {
		return err
	}
	return t.Execute(w, sc)
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
