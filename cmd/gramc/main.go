// Command gramc is the gram toolchain's command line: it parses, checks,
// formats and compiles .gram agent files, runs agents, and connects them to MCP
// servers and hosts.
//
//	gramc parse  [flags] FILE...|-
//	gramc check  [flags] PATH...|-
//	gramc schema [flags] FILE|DIR|DIR/...|-
//	gramc cost   [flags] FILE|DIR|DIR/...|-
//	gramc diff   [flags] OLD NEW | --against GIT NEW
//	gramc fmt    [flags] PATH...|-
//	gramc run    FILE|DIR|- [flags]
//	gramc test   [PATH...] [flags]
//	gramc mcp import (--mcp COMMAND | --mcp-url URL) [flags]
//	gramc mcp serve FILE|DIR [flags]
//	gramc serve FILE|DIR [--addr HOST:PORT] [flags]
//	gramc runs list|show RUN_ID|cancel RUN_ID|resume RUN_ID [flags]
//	gramc completion bash|zsh|fish
//	gramc help [COMMAND]
//	gramc version [--json]
//
// Flags may come before or after the arguments; after "--" every argument is
// an argument. A mistyped command or flag gets a did-you-mean.
//
// The synopses of docs/cli.md list every flag of each command (a test keeps
// them equal to each command's --help); docs/language.md describes the language.
//
// Run `gramc help` or `gramc COMMAND --help` for details. Exit codes: 0 clean, 1
// errors in the input, 2 usage or I/O errors; `gramc run` also exits 1 on an
// agent or model error and 3 on a configuration error (such as a missing API
// key) and 4 when a run awaits a person's approval; `gramc test` exits 1 when
// a test fails and 3 on a configuration error.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/buildinfo"
	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/runtime/replay"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// command is a command of gramc, or a subcommand of one: import of gramc
// mcp.
type command struct {
	name, summary string
	run           func(env *env, args []string) error
}

// env is what a command reads and writes.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// maxFileSize is the size limit of an input (--max-file-size).
	maxFileSize int64
	// color says when diagnostics are coloured (--color): "auto" or "",
	// "always" or "never".
	color string
	// onFlags, if set, sees each command's flag set as it is made (the
	// completion scripts are generated from them).
	onFlags func(*flag.FlagSet)
	// skipped are the entries a walk or a package skipped, warned about
	// once each (see warnSkipped).
	skipped   map[string]bool
	skippedMu sync.Mutex
	// overBudget, when set (by gramc cost, which prints the counts a
	// tool-token-budget error is about), is set true at such an error
	// instead of the error stopping the command (see env.stops).
	overBudget *bool
}

// mask masks secrets in what the command writes from here on, the log
// included.
func (e *env) mask(secrets ...string) {
	r := replay.NewRedactor(secrets...)
	e.stdout, e.stderr = r.Writer(e.stdout), r.Writer(e.stderr)
}

func commands() []command {
	return []command{
		{"parse", "parse gram files and print their syntax tree or patterns", runParse},
		{"check", "check gram agent files and report their diagnostics", runCheck},
		{"schema", "print the JSON Schemas of an agent file's tools", runSchema},
		{"cost", "count the tokens each agent's instruction and tools add to a request", runCost},
		{"diff", "compare two versions of an agent file's contracts: breaking or safe", runDiff},
		{"fmt", "format gram files in the canonical style", runFmt},
		{"run", "run an agent: a conversation with a model and its tools", runRun},
		{"test", "run the agent tests declared in gram files", runTest},
		{"mcp", "import an MCP server's tools as gram; serve agents over MCP", runMCP},
		{"playground", "serve the browser playground: edit, check and share gram in a page", runPlayground},
		{"serve", "serve agents over HTTP to any OpenAI client, with keys, limits and traces", runServe},
		{"runs", "list, show, cancel and resume durable runs, such as those awaiting approval", runRuns},
		{"completion", "print a shell completion script: bash, zsh or fish", runCompletion},
	}
}

// versionCommand is gramc version, listed in the overview after the
// commands of [commands].
var versionCommand = command{"version", "print the version and the build it comes from", runVersion}

func printUsage(w io.Writer) {
	var b strings.Builder
	cmds := append(commands(), versionCommand)
	width := 0
	for _, c := range cmds {
		width = max(width, len(c.name))
	}
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprintf(w, helpText("gramc"), b.String())
}

// Main runs gramc with the given arguments and streams and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, maxFileSize: defaultMaxFileSize}
	err := e.main(args)
	// e.stderr, not stderr: a command may have wrapped it to mask secrets.
	if msg := message(err); msg != "" {
		// A name or path in it shows its control characters.
		fmt.Fprintln(e.stderr, diag.Visible(msg))
	}
	return codeOf(err)
}

// main runs the command that args name.
func (e *env) main(args []string) error {
	if len(args) == 0 {
		printUsage(e.stderr)
		return exitWith(exitUsage)
	}
	switch args[0] {
	case "-h", "--help", "help":
		if args[0] != "help" || len(args) == 1 || args[1] == "help" {
			printUsage(e.stdout)
			return nil
		}
		// "gramc help CMD [SUB]" is "gramc CMD [SUB] --help".
		if c, ok := findCommand(e, args[1]); ok {
			return c.run(e, append(args[2:], "--help"))
		}
		return exitWith(exitUsage)
	case "--version", "-version":
		// gramc --version [--json] is gramc version [--json].
		return runVersion(e, args[1:])
	}
	if c, ok := findCommand(e, args[0]); ok {
		return c.run(e, args[1:])
	}
	return exitWith(exitUsage)
}

// runSubcommand runs the subcommand of gramc parent that args name, or
// prints parent's help; an unknown subcommand is reported with the
// usage, the subcommands followed by what they take (takes).
func runSubcommand(e *env, parent, takes string, subs []command, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, helpText(parent))
		return exitWith(exitUsage)
	}
	if slices.Contains([]string{"-h", "--help", "-help", "help"}, args[0]) {
		fmt.Fprint(e.stdout, helpText(parent))
		return nil
	}
	var names []string
	for _, c := range subs {
		if c.name == args[0] {
			return c.run(e, args[1:])
		}
		names = append(names, c.name)
	}
	unknownCommand(e.stderr, "gramc "+parent, args[0], names)
	fmt.Fprintf(e.stderr, "Usage: gramc %s %s [flags] %s\nRun 'gramc %s --help' for what each does.\n", parent, strings.Join(names, "|"), takes, parent)
	return exitWith(exitUsage)
}

// findCommand returns the command called name, or reports an unknown command
// (with the closest name, if one is close) and the short usage on standard
// error.
func findCommand(e *env, name string) (command, bool) {
	var names []string
	for _, c := range append(commands(), versionCommand) {
		if c.name == name {
			return c, true
		}
		names = append(names, c.name)
	}
	names = append(names, "help")
	unknownCommand(e.stderr, "gramc", name, names)
	fmt.Fprint(e.stderr, shortUsage)
	return command{}, false
}

// shortUsage follows an unknown command's message.
const shortUsage = `Usage: gramc COMMAND [flags] [arguments]
Run 'gramc help' for the list of commands.
`

// unknownCommand writes that name is no command of prog ("gramc", "gramc
// mcp"), with the closest of names if one is close: "gramc: unknown command
// chekc; did you mean check?".
func unknownCommand(w io.Writer, prog, name string, names []string) {
	msg := fmt.Sprintf("%s: unknown command %s", prog, quoteWord(name))
	if s := suggest.ClosestOrSwapped(name, names); s != "" {
		msg += "; did you mean " + s + "?"
	}
	fmt.Fprintln(w, msg)
}

// quoteWord returns s as it is when it is a plain word (letters, digits,
// '-', '_', '.'), else quoted.
func quoteWord(s string) string {
	if s == "" || strings.TrimFunc(s, func(r rune) bool {
		return r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}) != "" {
		return fmt.Sprintf("%q", s)
	}
	return s
}

func runVersion(e *env, args []string) error {
	fs := newFlags(e, "version")
	asJSON := fs.Bool("json", false, "print a JSON object instead of the version line")
	args, err := parseFlags(e, fs, args)
	if err != nil {
		return err
	}
	if len(args) > 0 {
		return usageError("gramc version", "takes no arguments, got %q", args[0])
	}
	if !*asJSON {
		fmt.Fprintln(e.stdout, buildinfo.Line("gramc"))
		return nil
	}
	return jsonvalue.WriteIndented(e.stdout, struct {
		Name string `json:"name"`
		buildinfo.Info
	}{"gramc", buildinfo.Read()})
}
