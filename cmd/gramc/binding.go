package main

// Binding an agent's tools before a run: the program, the tool library,
// the checks before the first model call and their report.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// loadProgram reads and compiles an agent file; on errors it prints the
// diagnostics and returns an exit code (-1 to go on).
func (o *runOptions) loadProgram(e *env, path string) (*schema.Program, int) {
	f, err := readInput(e, path)
	if err != nil {
		return nil, o.usageErr(e, "%v", err)
	}
	doc, parsed := parseInput(f, false)
	prog, compiled := schema.Compile(doc)
	if diags := schema.Merge(parsed, compiled); diags.HasErrors() {
		writeDiags(e, f, diags, 0)
		return nil, exitError
	}
	return prog, -1
}

// toolLibrary builds the tool library: the built-in tools, replaced by the
// --tool programs of the same name, then the tools of the MCP servers in
// the order given, each adding the names not bound yet. It starts the
// servers; call the returned function to close them. On failure it
// returns an exit code (-1 to go on).
func (o *runOptions) toolLibrary(ctx context.Context, e *env, logger *slog.Logger) (*runtime.Library, func(), int) {
	lib := runtime.Builtins()
	schemas := map[string]string{}
	for _, spec := range o.toolSchemas {
		name, file, _ := strings.Cut(spec, "=")
		schemas[strings.TrimSpace(name)] = file
	}
	for _, spec := range o.tools {
		name, command, _ := strings.Cut(spec, "=")
		name = strings.TrimSpace(name)
		tool := runtime.ExecTool(name, command, o.toolTimeout)
		if file, ok := schemas[name]; ok {
			data, err := os.ReadFile(file)
			if err != nil {
				fmt.Fprintf(e.stderr, "%s: --tool-schema %s: %v\n", o.cmd, name, err)
				return nil, nil, exitUsage
			}
			tool.Parameters = json.RawMessage(data)
		}
		if err := lib.Register(tool); err != nil {
			fmt.Fprintf(e.stderr, "%s: --tool-schema %s=%s: %v\n", o.cmd, name, schemas[name], strings.TrimPrefix(err.Error(), "runtime: "))
			return nil, nil, exitUsage
		}
	}
	var clients []*runtime.MCPClient
	closeAll := func() {
		for i := len(clients) - 1; i >= 0; i-- {
			if err := clients[i].Close(); err != nil {
				logger.Warn("closing the MCP session", "server", clients[i].Name(), "error", err)
			}
		}
	}
	var serverStderr io.Writer
	if o.logLevel != "off" && o.logLevel != "" {
		serverStderr = e.stderr
	}
	var mcpHTTP *http.Client
	if len(o.headers) > 0 {
		mcpHTTP = &http.Client{Transport: headerTransport{h: o.headers, next: http.DefaultTransport}}
	}
	for _, src := range o.mcp {
		c, err := runtime.ConnectMCP(ctx, runtime.MCPServer{Command: src.command, URL: src.url,
			Stderr: serverStderr, CallTimeout: o.toolTimeout, Logger: logger, HTTPClient: mcpHTTP})
		if err != nil {
			closeAll()
			if ctx.Err() != nil {
				fmt.Fprintf(e.stderr, "%s: interrupted\n", o.cmd)
				return nil, nil, exitInterrupted
			}
			fmt.Fprintf(e.stderr, "%s: %v\n", o.cmd, err)
			return nil, nil, exitError
		}
		clients = append(clients, c)
		added := c.AddTo(lib)
		logger.Info("MCP tools added", "server", c.Name(), "tools", strings.Join(added, ","))
	}
	return lib, closeAll, -1
}

// runtimeOptions returns the options of every run.
func (o *runOptions) runtimeOptions(model runtime.Model, logger *slog.Logger, injected map[string]any) []runtime.Option {
	opts := []runtime.Option{
		runtime.WithModel(model),
		runtime.WithLogger(logger),
		runtime.WithResultLimit(o.resultLimit),
		runtime.WithSummary(!o.noSummary),
	}
	if o.maxIterations > 0 {
		opts = append(opts, runtime.WithMaxIterations(o.maxIterations))
	}
	if injected != nil {
		opts = append(opts, runtime.WithInjected(injected))
	}
	return opts
}

// printBindHint follows a binding error with how to fix it.
func printBindHint(e *env, err error) {
	msg := err.Error()
	if strings.Contains(msg, "is not in the tool library") {
		fmt.Fprintln(e.stderr, "  hint: bind a missing tool to a program with --tool NAME=COMMAND, or to an MCP server with --mcp COMMAND or --mcp-url URL")
	}
	if strings.Contains(msg, "the declaration is looser") {
		fmt.Fprintln(e.stderr, "  hint: narrow the declaration at the places named: it may accept less than the implementation, never more; for an MCP server, gramc mcp import prints declarations that bind, and warns where it cannot")
	}
}

// unknownTools returns a problem for each --tool name that is not a tool of
// the agents, with the closest tool name.
func unknownTools(agents []*schema.Agent, specs []string) []string {
	var names []string
	for _, a := range agents {
		for _, t := range a.Tools {
			if !slices.Contains(names, t.Name) {
				names = append(names, t.Name)
			}
		}
	}
	var problems []string
	for _, spec := range specs {
		name, _, _ := strings.Cut(spec, "=")
		name = strings.TrimSpace(name)
		if slices.Contains(names, name) {
			continue
		}
		msg := fmt.Sprintf("--tool %s: the agent has no tool %q; %s", name, name, available("tools", names))
		if c := parser.Closest(name, names); c != "" {
			msg = fmt.Sprintf("--tool %s: the agent has no tool %q (did you mean %q?)", name, name, c)
		}
		problems = append(problems, msg)
	}
	return problems
}

// preflight checks an agent's setup before any model call: the tools bind
// to lib and every injected parameter has a valid value. Problems about a
// name in skip (already reported by coerceInjects) and values no tool
// injects (idem) are left out. It returns the problems and whether one of
// them is more than a binding error.
func preflight(agent *schema.Agent, lib *runtime.Library, injected map[string]any, skip []string) ([]error, bool) {
	_, err := runtime.Prepare(agent, lib, runtime.WithInjected(injected))
	var pe *runtime.PrepareError
	if !errors.As(err, &pe) {
		if err != nil {
			return []error{err}, true
		}
		return nil, false
	}
	var out []error
	config := false
	for _, p := range pe.Problems {
		var ie *runtime.InjectionError
		if errors.As(p, &ie) {
			if ie.Tool == "" || slices.Contains(skip, ie.Param) {
				continue
			}
			config = true
		}
		out = append(out, p)
	}
	return out, config
}

// reportSetup prints the problems found before a run, each on a line, with
// hints, and returns the exit code: 3 for configuration problems, 1 when
// tools only failed to bind, -1 when there is nothing to report.
func reportSetup(e *env, cmd string, problems []string, bindErrs []error, config bool) int {
	if len(problems) == 0 && len(bindErrs) == 0 {
		return -1
	}
	for _, p := range problems {
		fmt.Fprintf(e.stderr, "%s: %s\n", cmd, p)
	}
	var joined error
	for _, err := range bindErrs {
		fmt.Fprintf(e.stderr, "%s: %v\n", cmd, err)
		joined = errors.Join(joined, err)
	}
	if joined != nil {
		printBindHint(e, joined)
	}
	if config || len(problems) > 0 {
		if strings.Contains(fmt.Sprint(problems, joined), "injected") {
			fmt.Fprintln(e.stderr, "  hint: give each injected parameter a value with --inject NAME=VALUE")
		}
		return exitConfig
	}
	return exitError
}
