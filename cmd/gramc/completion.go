package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/gramlang/gram/project"
)

const completionHelp = `Usage: gramc completion bash|zsh|fish

Prints a script that makes the shell complete gramc's commands, their flags,
the values of flags that take one of a few (--format, --color, --log-level),
the agents of the .gram file on the command line after --agent, and file
names, *.gram files (and directories) where a gram file is expected.

Used by the scripts, "gramc completion agents FILE" prints the names of
FILE's agents, one a line (nothing when FILE cannot be read).

Install it, for the current user:
  bash  gramc completion bash > ~/.local/share/bash-completion/completions/gramc
        (or add  source <(gramc completion bash)  to ~/.bashrc)
  zsh   gramc completion zsh > "${fpath[1]}/_gramc"
        (a directory on $fpath; then start a new shell, with compinit run)
  fish  gramc completion fish > ~/.config/fish/completions/gramc.fish

Flags:
`

// runCompletion runs "gramc completion SHELL", which prints the shell's
// completion script, and "gramc completion agents FILE".
func runCompletion(e *env, args []string) error {
	fs := newFlags(e, "completion", completionHelp)
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
	cmds := completionCommands()
	var err error
	switch fs.Arg(0) {
	case "bash":
		err = writeBashCompletion(e.stdout, cmds)
	case "zsh":
		err = writeZshCompletion(e.stdout, cmds)
	case "fish":
		err = writeFishCompletion(e.stdout, cmds)
	default:
		return usageError("gramc completion", "unknown shell %q (want bash, zsh or fish)", fs.Arg(0))
	}
	if err != nil {
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
	for _, name := range agentNames(project.CheckText(f).Program) {
		fmt.Fprintln(e.stdout, name)
	}
}

// compCommand is a command as completion sees it.
type compCommand struct {
	name    string // "check", "mcp import"
	summary string
	flags   []compFlag
}

// compFlag is a flag as completion sees it.
type compFlag struct {
	name, usage string
	// value says what the flag takes: "" for none (a boolean), "file" for a
	// file name, "word" for text completion cannot guess, or "list" for
	// one of values.
	value  string
	values []string
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
		c := compCommand{name: name, summary: summary}
		if fs != nil {
			fs.VisitAll(func(f *flag.Flag) { c.flags = append(c.flags, describeFlag(f)) })
		}
		out = append(out, c)
	}
	for _, c := range append(commands(), versionCommand) {
		switch c.name {
		case "mcp":
			add("mcp import", "print an MCP server's tools as gram declarations", c.run, "import")
			add("mcp serve", "serve a file's agents and tools over MCP", c.run, "serve")
		default:
			add(c.name, c.summary, c.run)
		}
	}
	return out
}

// describeFlag says what f takes, from its type and usage.
func describeFlag(f *flag.Flag) compFlag {
	c := compFlag{name: f.Name, usage: strings.ReplaceAll(f.Usage, "`", "")}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return c
	}
	argName, _ := flag.UnquoteUsage(f)
	switch {
	case f.Name == "agent":
		c.value = "agent"
	case argName == "FILE" || argName == "DIR":
		c.value = "file"
	case valueList.MatchString(f.Usage):
		c.value = "list"
		m := valueList.FindStringSubmatch(f.Usage)[1]
		for _, w := range strings.Split(strings.Replace(m, " or ", ", ", 1), ", ") {
			c.values = append(c.values, w)
		}
	default:
		c.value = "word"
	}
	return c
}

// topWords are what may follow "gramc": the commands and help.
func topWords(cmds []compCommand) []string {
	return append(commandNames(cmds), "help")
}

// commandNames are the top-level command names.
func commandNames(cmds []compCommand) []string {
	var words []string
	seen := map[string]bool{}
	for _, c := range cmds {
		w, _, _ := strings.Cut(c.name, " ")
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

// writeBashCompletion writes the bash completion script of the commands
// cmds to w.
func writeBashCompletion(w io.Writer, cmds []compCommand) error {
	var b strings.Builder
	b.WriteString(`# bash completion for gramc; install with: gramc completion bash > ~/.local/share/bash-completion/completions/gramc
_gramc() {
    local cur prev cmd="" w i
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev=""
    if ((COMP_CWORD > 0)); then prev="${COMP_WORDS[COMP_CWORD-1]}"; fi
    # --flag=value: bash splits it at the "=".
    if [[ $cur == "=" ]]; then cur=""; fi
    if [[ $prev == "=" ]] && ((COMP_CWORD > 1)); then prev="${COMP_WORDS[COMP_CWORD-2]}"; fi
    for ((i = 1; i < COMP_CWORD; i++)); do
        w="${COMP_WORDS[i]}"
        case "$w" in -* | =) continue ;; esac
        if [[ -z $cmd ]]; then
            cmd="$w"
        elif [[ $cmd == mcp ]]; then
            cmd="mcp $w"
            break
        else
            break
        fi
    done
    local flags="" values="" kind=""
    case "$cmd" in
`)
	fmt.Fprintf(&b, "    \"\")\n        COMPREPLY=($(compgen -W %q -- \"$cur\"))\n        return ;;\n",
		strings.Join(append(topWords(cmds), "--help", "--version"), " "))
	fmt.Fprintf(&b, "    help)\n        COMPREPLY=($(compgen -W %q -- \"$cur\"))\n        return ;;\n",
		strings.Join(commandNames(cmds), " "))
	b.WriteString("    mcp)\n        COMPREPLY=($(compgen -W \"import serve\" -- \"$cur\"))\n        return ;;\n")
	for _, c := range cmds {
		var names []string
		fmt.Fprintf(&b, "    %q)\n", c.name)
		b.WriteString("        case \"$prev\" in\n")
		for _, f := range c.flags {
			names = append(names, dash(f.name))
			switch f.value {
			case "list":
				fmt.Fprintf(&b, "        -%s | --%s) kind=list values=%q ;;\n", f.name, f.name, strings.Join(f.values, " "))
			case "file":
				fmt.Fprintf(&b, "        -%s | --%s) kind=file ;;\n", f.name, f.name)
			case "word", "agent":
				fmt.Fprintf(&b, "        -%s | --%s) kind=%s ;;\n", f.name, f.name, f.value)
			}
		}
		b.WriteString("        esac\n")
		if c.name == "completion" {
			b.WriteString("        [[ -z $kind ]] && kind=list values=\"bash zsh fish\"\n")
		}
		fmt.Fprintf(&b, "        flags=%q ;;\n", strings.Join(names, " "))
	}
	b.WriteString(`    *) return ;;
    esac
    case "$kind" in
    list) COMPREPLY=($(compgen -W "$values" -- "$cur")); return ;;
    file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    word) COMPREPLY=(); return ;;
    agent)
        for w in "${COMP_WORDS[@]}"; do
            if [[ $w == *.gram ]]; then
                COMPREPLY=($(compgen -W "$(command gramc completion agents "$w" 2>/dev/null)" -- "$cur"))
                return
            fi
        done
        COMPREPLY=(); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.gram' -- "$cur"))
}
complete -o filenames -F _gramc gramc
`)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeZshCompletion writes the zsh completion script of the commands
// cmds to w.
func writeZshCompletion(w io.Writer, cmds []compCommand) error {
	var b strings.Builder
	b.WriteString(`#compdef gramc
# zsh completion for gramc; install with: gramc completion zsh > "${fpath[1]}/_gramc"
_gramc() {
    local cur=${words[CURRENT]} prev=${words[CURRENT-1]} cmd="" w i
    local -a flags values
    local kind=""
    for ((i = 2; i < CURRENT; i++)); do
        w=${words[i]}
        [[ $w == -* ]] && continue
        if [[ -z $cmd ]]; then
            cmd=$w
        elif [[ $cmd == mcp ]]; then
            cmd="mcp $w"
            break
        else
            break
        fi
    done
    case $cmd in
`)
	b.WriteString("    \"\")\n        local -a cmds\n        cmds=(\n")
	for _, c := range cmds {
		if n, _, sub := strings.Cut(c.name, " "); !sub {
			fmt.Fprintf(&b, "            %s\n", zshQuote(n+":"+c.summary))
		}
	}
	b.WriteString("            'mcp:import an MCP server''s tools as gram; serve agents over MCP'\n")
	b.WriteString("            'help:print a command''s help'\n        )\n")
	b.WriteString("        _describe command cmds\n        return ;;\n")
	fmt.Fprintf(&b, "    help) compadd -- %s; return ;;\n", strings.Join(commandNames(cmds), " "))
	b.WriteString("    mcp) compadd -- import serve; return ;;\n")
	for _, c := range cmds {
		writeZshCommandCase(&b, c)
	}
	b.WriteString(`    *) return 1 ;;
    esac
    case $kind in
    list) compadd -- $values; return ;;
    file) _files; return ;;
    word) return 1 ;;
    agent)
        for w in $words; do
            if [[ $w == *.gram ]]; then
                compadd -- ${(f)"$(command gramc completion agents $w 2>/dev/null)"}
                return
            fi
        done
        return 1 ;;
    esac
    if [[ $cur == -* ]]; then
        _values -w flag $flags
        return
    fi
    _files -g '*.gram(-.)'
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    _gramc "$@"
else
    compdef _gramc gramc
fi
`)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeZshCommandCase writes the case of the zsh completion function for
// the command c: the kind of value its flag before the cursor takes, and
// its flags with their usage.
func writeZshCommandCase(b *strings.Builder, c compCommand) {
	var names []string
	fmt.Fprintf(b, "    %s)\n        case $prev in\n", zshQuote(c.name))
	for _, f := range c.flags {
		names = append(names, zshQuote(dash(f.name)+"["+f.usage+"]"))
		switch f.value {
		case "list":
			fmt.Fprintf(b, "        -%s|--%s) kind=list; values=(%s) ;;\n", f.name, f.name, strings.Join(f.values, " "))
		case "file", "word", "agent":
			fmt.Fprintf(b, "        -%s|--%s) kind=%s ;;\n", f.name, f.name, f.value)
		}
	}
	b.WriteString("        esac\n")
	if c.name == "completion" {
		b.WriteString("        [[ -z $kind ]] && { kind=list; values=(bash zsh fish) }\n")
	}
	fmt.Fprintf(b, "        flags=(%s) ;;\n", strings.Join(names, " "))
}

// dash writes a flag as users write it: -l for one letter, else --name.
func dash(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// zshQuote quotes s for zsh in single quotes.
func zshQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// writeFishCompletion writes the fish completion script of the commands
// cmds to w.
func writeFishCompletion(w io.Writer, cmds []compCommand) error {
	var b strings.Builder
	b.WriteString("# fish completion for gramc; install with: gramc completion fish > ~/.config/fish/completions/gramc.fish\n")
	b.WriteString("complete -c gramc -f\n")
	b.WriteString(`function __gramc_agents
    for w in (commandline -opc)
        if string match -q -- '*.gram' $w
            command gramc completion agents $w 2>/dev/null
            return
        end
    end
end
`)
	top := strings.Join(topWords(cmds), " ")
	for _, c := range cmds {
		n, sub, isSub := strings.Cut(c.name, " ")
		if !isSub {
			fmt.Fprintf(&b, "complete -c gramc -n 'not __fish_seen_subcommand_from %s' -a %s -d %s\n", top, n, fishQuote(c.summary))
		}
		cond := "__fish_seen_subcommand_from " + n
		if isSub {
			cond += "; and __fish_seen_subcommand_from " + sub
			fmt.Fprintf(&b, "complete -c gramc -n '__fish_seen_subcommand_from mcp; and not __fish_seen_subcommand_from import serve' -a %s -d %s\n", sub, fishQuote(c.summary))
		}
		for _, f := range c.flags {
			opt := "-l"
			if len(f.name) == 1 {
				opt = "-s"
			}
			fmt.Fprintf(&b, "complete -c gramc -n '%s' %s %s -d %s", cond, opt, f.name, fishQuote(f.usage))
			switch f.value {
			case "list":
				fmt.Fprintf(&b, " -x -a %s", fishQuote(strings.Join(f.values, " ")))
			case "file":
				b.WriteString(" -r -F")
			case "word":
				b.WriteString(" -x")
			case "agent":
				b.WriteString(" -x -a '(__gramc_agents)'")
			}
			b.WriteString("\n")
		}
		switch c.name {
		case "completion":
			fmt.Fprintf(&b, "complete -c gramc -n '%s' -a 'bash zsh fish'\n", cond)
		default:
			fmt.Fprintf(&b, "complete -c gramc -n '%s' -a '(__fish_complete_suffix .gram)'\n", cond)
		}
	}
	fmt.Fprintf(&b, "complete -c gramc -n 'not __fish_seen_subcommand_from %s' -a mcp -d %s\n", top, fishQuote("import an MCP server's tools as gram; serve agents over MCP"))
	fmt.Fprintf(&b, "complete -c gramc -n '__fish_seen_subcommand_from help' -a %s\n", fishQuote(strings.Join(commandNames(cmds), " ")))
	fmt.Fprintf(&b, "complete -c gramc -n 'not __fish_seen_subcommand_from %s' -a help\n", top)
	b.WriteString("complete -c gramc -l version -d 'print the version'\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// fishQuote quotes s for fish in single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
