// Command gramc is the gram toolchain's command line: it parses, checks,
// formats and compiles .gram agent files, runs agents, and connects them to MCP
// servers and hosts.
//
//	gramc parse  [flags] FILE...|-
//	gramc check  [flags] PATH...|-
//	gramc schema [flags] FILE|-
//	gramc fmt    [flags] PATH...|-
//	gramc run    FILE [flags]
//	gramc test   [PATH...] [flags]
//	gramc mcp import (--mcp COMMAND | --mcp-url URL) [flags]
//	gramc mcp serve FILE [flags]
//	gramc completion bash|zsh|fish
//	gramc help [COMMAND]
//	gramc version
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
// key); `gramc test` exits 1 when a test fails and 3 on a configuration error.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gramlang/gram/internal/buildinfo"
	"github.com/gramlang/gram/internal/suggest"
)

// Version is the toolchain version reported by --version and in JSON output.
const Version = "0.1.0"

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

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
	// color says when diagnostics are coloured (--color).
	color colorMode
	// onFlags, if set, sees each command's flag set as it is made (the
	// completion scripts are generated from them).
	onFlags func(*flag.FlagSet)
}

func commands() []command {
	return []command{
		{"parse", "parse gram files and print their syntax tree or patterns", runParse},
		{"check", "check gram agent files and report their diagnostics", runCheck},
		{"schema", "print the JSON Schemas of an agent file's tools", runSchema},
		{"fmt", "format gram files in the canonical style", runFmt},
		{"run", "run an agent: a conversation with a model and its tools", runRun},
		{"test", "run the agent tests declared in gram files", runTest},
		{"mcp", "import an MCP server's tools as gram; serve agents over MCP", runMCP},
		{"completion", "print a shell completion script: bash, zsh or fish", runCompletion},
	}
}

const usage = `gramc: the gram toolchain

Usage:
  gramc COMMAND [flags] [arguments]

Commands:
%s
Run 'gramc help COMMAND' (or 'gramc COMMAND --help') for a command's flags,
'gramc version' for the version. Flags may follow the file names.
Exit codes: 0 clean, 1 errors in the input, 2 usage or I/O errors.
`

func printUsage(w io.Writer) {
	var b strings.Builder
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, usage, b.String())
}

// Main runs gramc with the given arguments and streams and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, maxFileSize: defaultMaxFileSize}
	err := e.main(args)
	// e.stderr, not stderr: a command may have wrapped it to mask secrets.
	return exitCode(e.stderr, err)
}

// main runs the command that args name.
func (e *env) main(args []string) error {
	if len(args) == 0 {
		printUsage(e.stderr)
		return exitWith(exitUsage)
	}
	switch args[0] {
	case "-h", "--help":
		printUsage(e.stdout)
		return nil
	case "help":
		if len(args) == 1 {
			printUsage(e.stdout)
			return nil
		}
		// "gramc help CMD [SUB]" is "gramc CMD [SUB] --help".
		if c, ok := findCommand(e, args[1]); ok {
			return c.run(e, append(args[2:], "--help"))
		}
		return exitWith(exitUsage)
	case "--version", "-version", "version":
		printVersion(e.stdout, "gramc")
		return nil
	}
	if c, ok := findCommand(e, args[0]); ok {
		return c.run(e, args[1:])
	}
	return exitWith(exitUsage)
}

// findCommand returns the command called name, or reports an unknown command
// (with the closest name, if one is close) on standard error.
func findCommand(e *env, name string) (command, bool) {
	var names []string
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
		names = append(names, c.name)
	}
	names = append(names, "help", "version")
	fmt.Fprintf(e.stderr, "gramc: unknown command %q\n", name)
	if s := suggest.Closest(name, names); s != "" {
		fmt.Fprintf(e.stderr, "Did you mean 'gramc %s'?\n", s)
	}
	fmt.Fprintln(e.stderr)
	printUsage(e.stderr)
	return command{}, false
}

// printVersion prints the program's version line (see [buildinfo.Line]).
func printVersion(w io.Writer, prog string) {
	fmt.Fprintln(w, buildinfo.Line(prog, Version))
}
