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
	"strings"
	"syscall"
	"time"

	"github.com/gramlang/gram/runtime/mcp"

	"github.com/gramlang/gram/binding"
	"github.com/gramlang/gram/internal/buildinfo"
	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/internal/shellquote"
	"github.com/gramlang/gram/mcpimport"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// mcpCommands are the subcommands of gramc mcp.
var mcpCommands = []command{
	{"import", "print an MCP server's tools as gram declarations", runMCPImport},
	{"serve", "serve a file's agents and tools over MCP", runMCPServe},
}

func runMCP(e *env, args []string) error {
	return runSubcommand(e, "mcp", "[arguments]", mcpCommands, args)
}

func runMCPImport(e *env, args []string) error {
	fs := newFlags(e, "mcp import")
	var (
		sources          []mcp.Source
		tools, injected  []string
		agent, modelName string
		logLevel         string
		timeout          time.Duration
	)
	fs.Func("mcp", "the `COMMAND` that starts the MCP server (stdio)", mcpSources(&sources, false))
	fs.Func("mcp-url", "the `URL` of the MCP server (streamable HTTP)", mcpSources(&sources, true))
	fs.Func("tool", "import only the tool `NAME` (repeatable)", appendTo(&tools))
	fs.Func("injected", "declare the parameters called `NAME` injected (repeatable)", appendTo(&injected))
	fs.StringVar(&agent, "agent", "", "add an agent called `NAME` that lists the imported tools")
	fs.StringVar(&modelName, "model", mcpimport.DefaultModel, "the `MODEL` of the agent added with --agent")
	fs.StringVar(&logLevel, "log-level", "off", "log on standard error at `LEVEL`: debug, info, warn, error or off")
	fs.DurationVar(&timeout, "mcp-timeout", mcp.DefaultStartTimeout, mcpTimeoutUsage)
	args, err := parseFlags(e, fs, args)
	if err != nil {
		return err
	}
	usageErr := func(format string, a ...any) error {
		return usageError("gramc mcp import", format, a...)
	}
	if len(args) > 0 {
		return usageErr("unexpected argument %q (see gramc mcp import --help)", args[0])
	}
	if len(sources) != 1 {
		return usageErr("give one MCP server, with --mcp COMMAND or --mcp-url URL")
	}
	e.mask(replay.ProcessSecrets(os.Environ(), nil, sources[0].URL)...)
	if agent != "" && !gramtext.IsSymbol(agent) {
		return usageErr("--agent %q: write a name of letters, digits and _, starting with a letter or _, other than true and false", agent)
	}
	logger, err := binding.NewLogger(e.stderr, logLevel)
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
	client, err := mcp.Connect(ctx, mcp.Config{Command: src.Command, URL: src.URL, Stderr: serverStderr, Logger: logger, StartTimeout: binding.StartTimeout(timeout)})
	if err != nil {
		if ctx.Err() != nil {
			return fail(exitInterrupted, "gramc mcp import: interrupted")
		}
		return fail(exitError, "gramc mcp import: %v%s", err, binding.TimeoutHint(err))
	}
	defer client.Close()

	name := client.Name()
	how := "--mcp " + shellquote.Quote(src.Command)
	if src.URL != "" {
		how = "--mcp-url " + shellquote.Quote(src.URL)
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

// quoteString returns s in double quotes, on one line.
func quoteString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", " ", "\r", " ").Replace(s) + `"`
}

func runMCPServe(e *env, args []string) error {
	fs := newFlags(e, "mcp serve")
	o := runOptions{cmd: "gramc mcp serve"}
	var agents []string
	fs.Func("agent", "serve only the agent `NAME` (repeatable)", appendTo(&agents))
	o.addSharedFlags(fs)
	colorFlag(e, fs)
	if err := o.parseFile(e, fs, args, false, "give exactly one agent file (standard input carries the protocol)"); err != nil {
		return err
	}
	logger, injected, err := o.setup(e)
	if err != nil {
		return err
	}
	served, err := o.servedAgents(e, agents)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	lib, opts, _, closeTools, err := o.bind(ctx, served, true, logger, injected)
	if err != nil {
		return err
	}
	defer closeTools()
	var list []runtime.Bound
	for i, a := range served {
		list = append(list, runtime.Bound{Agent: a, Library: lib, Options: opts[i], Program: o.set.Tree})
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

// servedAgents loads the program of o's file and returns the agents that
// gramc mcp serve and gramc serve serve (see [binding.Setup.Served]).
func (o *runOptions) servedAgents(e *env, names []string) ([]*schema.Agent, error) {
	prog, err := o.loadProgram(e, o.file)
	if err != nil {
		return nil, err
	}
	return o.set.Served(prog, o.file, names)
}
