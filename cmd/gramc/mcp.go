package main

// gramc mcp: the Model Context Protocol commands. import writes gram
// declarations for the tools of an MCP server; serve exposes the agents of
// a gram file as the tools of an MCP server on standard input and output.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gramlang/gram/runtime/mcp"

	"github.com/gramlang/gram/internal/buildinfo"
	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/mcpimport"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

const mcpHelp = `Usage: gramc mcp import (--mcp COMMAND | --mcp-url URL) [--tool NAME]... [flags]
       gramc mcp serve FILE|DIR [--agent NAME]... [--tool NAME=COMMAND]... [--mcp COMMAND]... [flags]

Model Context Protocol (MCP) commands:

  import  print gram Tool declarations (and Records) for the tools of an MCP
          server, to write agents against it
  serve   serve the agents of a gram file as MCP tools on standard input and
          output, for any MCP host

Run 'gramc mcp import --help' or 'gramc mcp serve --help' for the flags.
`

func runMCP(e *env, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, mcpHelp)
		return exitWith(exitUsage)
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		fmt.Fprint(e.stdout, mcpHelp)
		return nil
	case "import":
		return runMCPImport(e, args[1:])
	case "serve":
		return runMCPServe(e, args[1:])
	}
	unknownCommand(e.stderr, "gramc mcp", args[0], []string{"import", "serve"})
	fmt.Fprint(e.stderr, "Usage: gramc mcp import|serve [flags] [arguments]\nRun 'gramc mcp --help' for what each does.\n")
	return exitWith(exitUsage)
}

const mcpImportHelp = `Usage: gramc mcp import (--mcp COMMAND | --mcp-url URL) [--tool NAME]...
                        [--injected NAME]... [--agent NAME [--model MODEL]]

Connects to an MCP server, started by COMMAND (run with sh -c, speaking MCP on
its standard input and output) or reached at URL (streamable HTTP), and prints
a gram file declaring its tools: a Tool per tool, with the parameters of its
inputSchema in order and the return type of its outputSchema, and a Record per
object with properties. Bind the tools to the server at run time with
gramc run FILE --mcp COMMAND (or --mcp-url URL). Each step of starting the
session (the handshake, the tool list with all its pages) must end within
--mcp-timeout; a tool list of more than 1000 pages or 10000 tools is refused.
A tool named like a built-in tool (sayHello, ...) is left out
with a warning: gramc run would bind the built-in instead.

--tool imports only the named tools. --injected NAME declares the parameters
called NAME injected: the host supplies them (gramc run --inject NAME=VALUE)
and the model never sees them. --agent NAME adds an agent listing every
imported tool, to edit.

What JSON Schema constructs have no gram form (oneOf, nullable types,
exclusive bounds, constraints on array elements, defaults gram cannot write,
...) are approximated and reported as warnings on standard error and, once,
as comments above each tool they concern. What loses nothing is not
reported: a server's inputSchema that does not forbid extra properties
becomes a closed parameter list, which is stricter than the server and so
binds. Each declaration is checked against the server's inputSchema by the
rule gramc run binds with; a warning says where an approximation made a
declaration accept arguments the server refuses.

Exit codes: 0 success (warnings included), 1 the server cannot be used, 2
usage errors.

Flags:
`

func runMCPImport(e *env, args []string) error {
	fs := newFlags(e, "mcp import", mcpImportHelp)
	var (
		sources          []mcp.Source
		tools, injected  listFlag
		agent, modelName string
		logLevel         string
		timeout          time.Duration
	)
	fs.Var(mcpFlag{list: &sources}, "mcp", "the `COMMAND` that starts the MCP server (stdio)")
	fs.Var(mcpFlag{list: &sources, url: true}, "mcp-url", "the `URL` of the MCP server (streamable HTTP)")
	fs.Var(&tools, "tool", "import only the tool `NAME` (repeatable)")
	fs.Var(&injected, "injected", "declare the parameters called `NAME` injected (repeatable)")
	fs.StringVar(&agent, "agent", "", "add an agent called `NAME` that lists the imported tools")
	fs.StringVar(&modelName, "model", mcpimport.DefaultModel, "the `MODEL` of the agent added with --agent")
	fs.StringVar(&logLevel, "log-level", "off", "log on standard error at `LEVEL`: debug, info, warn, error or off")
	fs.DurationVar(&timeout, "mcp-timeout", mcp.DefaultStartTimeout, mcpTimeoutUsage)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	usageErr := func(format string, a ...any) error {
		return usageError("gramc mcp import", format, a...)
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q (see gramc mcp import --help)", fs.Arg(0))
	}
	if len(sources) != 1 {
		return usageErr("give one MCP server, with --mcp COMMAND or --mcp-url URL")
	}
	red := replay.NewRedactor(replay.ProcessSecrets(os.Environ(), nil, sources[0].URL)...)
	e.stdout, e.stderr = red.Writer(e.stdout), red.Writer(e.stderr)
	if agent != "" && !gramtext.IsSymbol(agent) {
		return usageErr("--agent %q: write a name of letters, digits and _, starting with a letter or _, other than true and false", agent)
	}
	logger, err := newLogger(e.stderr, logLevel)
	if err != nil {
		return usageErr("%v", err)
	}
	src := sources[0]
	var serverStderr io.Writer
	if logLevel != "off" {
		serverStderr = e.stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	client, err := mcp.Connect(ctx, mcp.Config{Command: src.Command, URL: src.URL, Stderr: serverStderr, Logger: logger, StartTimeout: mcpStartTimeout(timeout)})
	if err != nil {
		if ctx.Err() != nil {
			return fail(exitInterrupted, "gramc mcp import: interrupted")
		}
		return fail(exitError, "gramc mcp import: %v%s", err, mcpTimeoutHint(err))
	}
	defer client.Close()

	name := client.Name()
	how := "--mcp " + shellQuote(src.Command)
	if src.URL != "" {
		how = "--mcp-url " + shellQuote(src.URL)
	}
	comment := fmt.Sprintf("The tools of the MCP server %s, imported by gramc mcp import.\nBind them at run time with: gramc run FILE %s", quoteString(name), how)
	imp, err := mcpimport.Import(client.Tools(), mcpimport.Options{
		Server: name, Comment: comment, Tools: tools, Injected: injected, Agent: agent, Model: modelName,
	})
	var bad *mcpimport.CompileError
	if errors.As(err, &bad) {
		writeDiags(e, bad.File, bad.Diagnostics, 0)
		return fail(exitError, "gramc mcp import: the generated declarations do not compile; please report this")
	}
	if err != nil {
		return usageError("gramc mcp import", "%v", err)
	}
	for _, w := range imp.Warnings {
		fmt.Fprintf(e.stderr, "gramc mcp import: warning: %s\n", w)
	}
	if _, err := e.stdout.Write(imp.Source); err != nil {
		return usageError("gramc mcp import", "%v", err)
	}
	return nil
}

// mcpTimeoutUsage describes the --mcp-timeout flag.
const mcpTimeoutUsage = "time limit (`DURATION`) of each step of starting an MCP session: the handshake, the tool list with all its pages (0: none)"

// mcpTimeoutHint returns, for an MCP server that did not answer a step of
// the start of its session in time, a line saying how to allow it more.
func mcpTimeoutHint(err error) string {
	var te *mcp.StartTimeoutError
	if !errors.As(err, &te) {
		return ""
	}
	return "\n  hint: a server that is slow to start can be given longer with --mcp-timeout DURATION (e.g. --mcp-timeout 2m)"
}

// mcpStartTimeout returns the [mcp.Config.StartTimeout] of an --mcp-timeout
// value, where 0 means no limit.
func mcpStartTimeout(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}

// shellQuote quotes s for sh when it has characters sh would read.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// quoteString returns s in double quotes, on one line.
func quoteString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", " ", "\r", " ").Replace(s) + `"`
}

const mcpServeHelp = `Usage: gramc mcp serve FILE|DIR [--agent NAME]... [--tool NAME=COMMAND]...
                       [--mcp COMMAND]... [--mcp-url URL]... [--inject NAME=VALUE]...
                       [--base-url URL] [--replay FILE | --record FILE] [flags]

Serves the agents of a gram file, or of the package of a directory DIR (a
tree, DIR/..., is refused: name one package's directory or file), as the tools of an MCP server speaking on
standard input and output, so any MCP host (an IDE, a desktop assistant,
another agent) can call them. Each agent is a tool named after it, with the
input {"message": string}; a call runs one turn of a new conversation and its
result is the agent's answer (a failed run, or one that reached its
iteration limit or was cut short, is a result flagged isError, with what the
agent gave). A call whose request carries a progress token (in its _meta)
gets notifications/progress messages on that token while the agent works
(each model call, each tool call as it starts and ends, how much text the
model has written), and the model's answers are then streamed. --agent
serves only the named agents. A line from the host that
is not a JSON-RPC 2.0 message (or is longer than 8 MiB), and a request whose
id is that of a request in progress, get a JSON-RPC error reply (-32700 or
-32600), are reported on standard error, and the session goes on; so does a
request before initialize (-32600). Ctrl-C or SIGTERM cancels the calls in progress and
stops at once.

The agents' tools are bound as gramc run binds them: the built-in tools,
--tool programs, then the tools of the --mcp and --mcp-url servers, which are
started once and shut down when the host closes the connection or on Ctrl-C.
The model is configured as for gramc run (OPENAI_API_KEY, --base-url,
--replay, ...). Logs and the tools' standard error go to standard error,
never to standard output, which carries the protocol.

A host's configuration, for example:

  {"mcpServers": {"my-agents": {"command": "gramc",
     "args": ["mcp", "serve", "/path/to/agents.gram"],
     "env": {"OPENAI_API_KEY": "sk-..."}}}}

Exit codes: 0 the host closed the connection, 1 errors in the file or its
tools, 2 usage errors, 3 configuration errors (e.g. OPENAI_API_KEY not set).

Flags:
`

func runMCPServe(e *env, args []string) error {
	fs := newFlags(e, "mcp serve", mcpServeHelp)
	o := runOptions{cmd: "gramc mcp serve"}
	var agents listFlag
	fs.Var(&agents, "agent", "serve only the agent `NAME` (repeatable)")
	o.addSharedFlags(fs)
	colorFlag(e, fs)
	if err := o.parseFile(e, fs, args, false, "give exactly one agent file (standard input carries the protocol)"); err != nil {
		return err
	}
	logger, injected, err := o.setup(e)
	if err != nil {
		return err
	}
	prog, err := o.loadProgram(e, o.file)
	if err != nil {
		return err
	}
	served, err := o.servedAgents(prog, agents)
	if err != nil {
		return err
	}
	o.applyModels(served...)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	lib, injected, closeTools, err := o.bind(ctx, e, served, logger, injected, true)
	if err != nil {
		return err
	}
	defer closeTools()
	transport, _, err := modelTransport(e, o)
	if err != nil {
		return err
	}
	var list []mcp.ServedAgent
	for _, a := range served {
		model, err := newModel(a, o, transport, o.replay != "", logger)
		if err != nil {
			return err
		}
		list = append(list, mcp.ServedAgent{Agent: a, Library: lib, Options: o.runtimeOptions(model, logger, injected)})
	}
	impl := &mcp.Implementation{Name: "gramc", Title: "gram agents of " + filepath.Base(o.file), Version: buildinfo.Version()}
	server := mcp.NewServer(impl, list, logger)
	logger.Info("serving agents over MCP on standard input and output", "agents", len(list))
	err = mcp.Serve(ctx, server, e.stdin, e.stdout, e.stderr)
	if err != nil && ctx.Err() == nil {
		return fail(exitError, "gramc mcp serve: %v", err)
	}
	return nil
}

// servedAgents returns the agents of prog that gramc mcp serve serves: those
// named with --agent, or all of them.
func (o *runOptions) servedAgents(prog *schema.Program, names []string) ([]*schema.Agent, error) {
	served := prog.Agents
	if len(names) > 0 {
		served = nil
		for _, name := range names {
			a := prog.Agent(name)
			if a == nil {
				return nil, o.usageErr("no agent %q in %s; %s", name, o.file, available("agents", name, agentNames(prog)))
			}
			if !slices.Contains(served, a) {
				served = append(served, a)
			}
		}
	}
	if len(served) == 0 {
		return nil, o.usageErr("%s has no agent to serve", o.file)
	}
	return served, nil
}
