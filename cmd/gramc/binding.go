package main

// Binding an agent's tools before a run: the program, the tool library,
// the checks before the first model call and their report.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/mcp"
	"github.com/gramlang/gram/schema"
)

// loadProgram reads and compiles an agent file with its package, or the
// package of a directory (see loadPackageTree); on errors it prints the
// diagnostics. It returns the program whose agents the command runs, and
// sets o.tree to the program in which they find the agents they call or
// hand off to, every agent with the model the bindings give it.
func (o *runOptions) loadProgram(e *env, path string) (*schema.Program, error) {
	prog, tree, err := loadPackageTree(e, o.cmd, path, 0)
	if err != nil {
		return nil, err
	}
	o.tree = o.bound.Program(tree)
	return prog, nil
}

// boundAgent returns agent as the runs take it: the agent of o.tree of
// its name, with the model the bindings give it.
func (o *runOptions) boundAgent(agent *schema.Agent) *schema.Agent {
	if o.tree != nil {
		if a := o.tree.Agent(agent.Name); a != nil {
			return a
		}
	}
	return o.bound.Agent(agent)
}

// agentOptions returns the run options of each of agents, on transport:
// those of every run (see runtimeOptions), its model and fallbacks, and
// the tree of runs it starts: the program in which it finds the agents it
// calls or hands off to, and the source of their models (see
// modelSource), which makes its own model too, so that every agent of the
// tree has its model made alike. run, mcp serve and serve take them.
func (o *runOptions) agentOptions(agents []*schema.Agent, transport http.RoundTripper, replay bool, logger *slog.Logger, injected map[string]any) ([][]runtime.Option, error) {
	src, err := o.modelSource(o.tree.Reachable(agents...), transport, replay, logger)
	if err != nil {
		return nil, err
	}
	out := make([][]runtime.Option, len(agents))
	for i, a := range agents {
		model, fbs, err := src(a)
		if err != nil {
			return nil, err
		}
		opts := o.runtimeOptions(model, logger, injected)
		if len(fbs) > 0 {
			opts = append(opts, runtime.WithFallbacks(fbs...))
		}
		out[i] = append(opts, runtime.WithProgram(o.tree), runtime.WithModelSource(src))
	}
	return out, nil
}

// modelSource returns the source of the models of the agents of nested
// runs and handoffs: each agent's model and fallbacks made as the command
// makes the top agent's (see newModel and agentFallbacks), on transport.
// Those of agents are made now, so that a problem with one (a provider
// without a key) is reported before any run; another is made when asked.
func (o *runOptions) modelSource(agents []*schema.Agent, transport http.RoundTripper, replay bool, logger *slog.Logger) (runtime.ModelSource, error) {
	type made struct {
		model runtime.Model
		fbs   []runtime.Fallback
	}
	build := func(a *schema.Agent) (made, error) {
		m, err := newModel(a, *o, transport, replay, logger)
		if err != nil {
			return made{}, err
		}
		fbs, err := agentFallbacks(a, *o, transport, replay, logger)
		return made{m, fbs}, err
	}
	models := map[*schema.Agent]made{}
	for _, a := range agents {
		m, err := build(a)
		if err != nil {
			return nil, err
		}
		models[a] = m
	}
	return func(a *schema.Agent) (runtime.Model, []runtime.Fallback, error) {
		m, ok := models[a]
		if !ok {
			var err error
			if m, err = build(a); err != nil {
				return nil, nil, err
			}
		}
		return m.model, m.fbs, nil
	}, nil
}

// bind builds the tool library of agents (see toolLibrary) and checks,
// before any model call, that their tools bind to it and that the --inject
// and --tool names and values fit them (see preflight). It returns the
// library, the injected values fitted to their declared types, and the
// function that closes the MCP servers; the error reports every problem
// at once. nameAgents puts the agent's name before each binding problem,
// as do several agents (those that agents call or hand off to among them).
// The injected parameters of o.perRequest need no value here: each request
// brings its own.
func (o *runOptions) bind(ctx context.Context, e *env, agents []*schema.Agent, logger *slog.Logger, injected map[string]any, nameAgents bool) (*runtime.Library, map[string]any, func(), error) {
	agents = o.tree.Reachable(agents...) // the sub-agents' and handed-to agents' tools too
	nameAgents = nameAgents || len(agents) > 1
	list, injected := o.boundInjects(agents, injected)
	injected, problems, strays := coerceInjects(agents, list, injected)
	problems = append(problems, unknownTools(agents, o.tools)...)
	var refused []string // names whose value coerceInjects refused
	for _, n := range specNames(o.injects) {
		if _, ok := injected[n]; !ok {
			refused = append(refused, n)
		}
	}
	refused = append(refused, o.perRequest...)
	need := []string{} // not nil: only these MCP tools are bound
	for _, a := range agents {
		for _, t := range a.Tools {
			need = append(need, t.Name)
		}
	}
	lib, closeTools, err := o.toolLibrary(ctx, e, logger, need)
	if err != nil {
		return nil, nil, nil, also(err, setupError(o.cmd, problems, nil, false, len(strays) > 0))
	}
	var bindErrs []error
	config := false
	for _, a := range agents {
		errs, c := preflight(a, o.tree, lib, injected, refused)
		for _, err := range errs {
			if nameAgents {
				err = fmt.Errorf("agent %s: %w", a.Name, err)
			}
			bindErrs = append(bindErrs, err)
		}
		config = config || c
	}
	if err := setupError(o.cmd, problems, bindErrs, config, len(strays) > 0); err != nil {
		closeTools()
		return nil, nil, nil, err
	}
	return lib, injected, closeTools, nil
}

// toolLibrary builds the tool library (see mcp.Assemble): the built-in
// tools, replaced by the --tool programs of the same name, then the tools
// of the MCP servers in the order given, each adding the names not bound
// yet; when need is not nil, only the MCP tools it names. It starts the
// servers; call the returned function to close them.
func (o *runOptions) toolLibrary(ctx context.Context, e *env, logger *slog.Logger, need []string) (*runtime.Library, func(), error) {
	tools, schemas, err := o.flagTools(e)
	if err != nil {
		return nil, nil, err
	}
	a := mcp.Assembly{Tools: tools, Servers: o.mcp, Need: need, Headers: o.headers,
		Logger: logger, CallTimeout: o.toolTimeout, StartTimeout: mcpStartTimeout(o.mcpTimeout), Elicitor: o.elicitor}
	for _, p := range o.bound.Programs {
		a.Programs = append(a.Programs, mcp.Program{Name: p.Name, Command: p.Command})
	}
	if o.logLevel != "off" && o.logLevel != "" {
		a.Stderr = e.stderr
	}
	lib, closeTools, err := mcp.Assemble(ctx, a)
	var re *mcp.RegisterError
	switch {
	case err == nil:
		return lib, closeTools, nil
	case errors.As(err, &re) && re.Program:
		return nil, nil, fail(exitConfig, "%s: %s: %v", o.cmd, o.bound.Path, err)
	case errors.As(err, &re):
		return nil, nil, o.usageErr("--tool-schema %s=%s: %v", re.Tool, schemas[re.Tool], strings.TrimPrefix(re.Err.Error(), "runtime: "))
	case ctx.Err() != nil:
		return nil, nil, fail(exitInterrupted, "%s: interrupted", o.cmd)
	}
	return nil, nil, fail(exitError, "%s: %v%s", o.cmd, err, mcpTimeoutHint(err))
}

// flagTools returns the --tool programs, each with the schema its
// --tool-schema file gives, and those files by tool name.
func (o *runOptions) flagTools(e *env) ([]runtime.Tool, map[string]string, error) {
	schemas := map[string]string{}
	for _, spec := range o.toolSchemas {
		name, file, _ := strings.Cut(spec, "=")
		schemas[strings.TrimSpace(name)] = file
	}
	var tools []runtime.Tool
	for _, spec := range o.tools {
		name, command, _ := strings.Cut(spec, "=")
		name = strings.TrimSpace(name)
		tool := runtime.ExecTool(name, command, o.toolTimeout)
		if file, ok := schemas[name]; ok {
			data, err := readOther(e, file)
			if err != nil {
				return nil, nil, o.usageErr("--tool-schema %s: %v", name, err)
			}
			tool.Parameters = json.RawMessage(data)
			if err := runtime.CheckSchema(tool.Parameters); err != nil {
				return nil, nil, o.usageErr("--tool-schema %s=%s: tool %q: %v", name, file, name, err)
			}
		}
		tools = append(tools, tool)
	}
	return tools, schemas, nil
}

// runtimeOptions returns the options of every run.
func (o *runOptions) runtimeOptions(model runtime.Model, logger *slog.Logger, injected map[string]any) []runtime.Option {
	opts := []runtime.Option{
		runtime.WithModel(model),
		runtime.WithLogger(logger),
		runtime.WithResultLimit(o.resultLimit),
		runtime.WithSummary(!o.noSummary),
		runtime.WithOutputRetries(o.outputRetries),
	}
	if o.maxIterations > 0 {
		opts = append(opts, runtime.WithMaxIterations(o.maxIterations))
	}
	if o.maxDepth > 0 {
		opts = append(opts, runtime.WithMaxDepth(o.maxDepth))
	}
	if o.maxModelCalls > 0 {
		opts = append(opts, runtime.WithMaxModelCalls(o.maxModelCalls))
	}
	if injected != nil {
		opts = append(opts, runtime.WithInjected(injected))
	}
	if o.traceOut != nil {
		opts = append(opts, runtime.WithToolTrace(o.traceOut))
	}
	return append(opts, o.streamingOptions()...)
}

// bindHints returns how to fix the binding problems in err: a tool
// missing from the library, a declaration looser than its implementation.
func bindHints(err error) []string {
	var hints []string
	if errors.Is(err, runtime.ToolMissing) {
		hints = append(hints, "  hint: bind a missing tool to a program with --tool NAME=COMMAND, or to an MCP server with --mcp COMMAND or --mcp-url URL, or once for the project in bindings.gram")
	}
	if errors.Is(err, runtime.ToolIncompatible) {
		hints = append(hints, "  hint: narrow the declaration at the places named: it may accept less than the implementation, never more; for an MCP server, gramc mcp import prints declarations that bind, and warns where it cannot")
	}
	return hints
}

// injectionProblem reports whether err is, or joins, a problem of the
// injected parameters: a [runtime.InjectionError], or a
// [runtime.ToolError] of kind [runtime.ToolInjection].
func injectionProblem(err error) bool {
	var ie *runtime.InjectionError
	return errors.As(err, &ie) || errors.Is(err, runtime.ToolInjection)
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
	for _, name := range specNames(specs) {
		if slices.Contains(names, name) {
			continue
		}
		msg := fmt.Sprintf("--tool %s: the agent has no tool %q; %s", name, name, available("tools", name, names))
		if c := suggest.Closest(name, names); c != "" {
			msg = fmt.Sprintf("--tool %s: the agent has no tool %q (did you mean %q?)", name, name, c)
		}
		problems = append(problems, msg)
	}
	return problems
}

// preflight checks an agent's setup before any model call: its own tools
// bind to lib and every injected parameter of theirs has a valid value;
// the agents it uses must be in tree (their tools are each checked as
// their agent's). Problems about a name in skip (already reported by
// coerceInjects) and values no tool injects (idem) are left out. It
// returns the problems and whether one of them is more than a binding
// error.
func preflight(agent *schema.Agent, tree *schema.Program, lib *runtime.Library, injected map[string]any, skip []string) ([]error, bool) {
	// The agents it uses, without tools: only the agent's own are checked.
	var used []*schema.Agent
	for _, name := range agent.UsedAgents() {
		if a := programAgent(tree, name); a != nil {
			used = append(used, &schema.Agent{Name: a.Name, Model: a.Model})
		}
	}
	_, err := runtime.Prepare(agent, lib, runtime.WithInjected(injected), runtime.WithProgram(schema.NewProgram(nil, used, nil, nil)))
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

// programAgent returns the agent of prog called name; nil when there is
// none, or no program.
func programAgent(prog *schema.Program, name string) *schema.Agent {
	if prog == nil {
		return nil
	}
	return prog.Agent(name)
}

// setupError returns the error that reports the problems found before a
// run, each on a line, with hints: exit code 3 for configuration problems,
// 1 when tools only failed to bind; nil when there is nothing to report.
// stray says that an --inject name is one no tool injects.
func setupError(cmd string, problems []string, bindErrs []error, config, stray bool) error {
	if len(problems) == 0 && len(bindErrs) == 0 {
		return nil
	}
	var lines []string
	for _, p := range problems {
		lines = append(lines, cmd+": "+p)
	}
	var joined error
	for _, err := range bindErrs {
		lines = append(lines, fmt.Sprintf("%s: %v", cmd, err))
		joined = errors.Join(joined, err)
	}
	lines = append(lines, bindHints(joined)...)
	if config || len(problems) > 0 {
		if stray || injectionProblem(joined) {
			lines = append(lines, injectHint(cmd))
		}
		return fail(exitConfig, "%s", strings.Join(lines, "\n"))
	}
	return fail(exitError, "%s", strings.Join(lines, "\n"))
}

// injectHint says how to give the injected parameters their values in
// the command cmd: gramc serve also takes them from each caller's claims.
func injectHint(cmd string) string {
	if cmd == "gramc serve" {
		return "  hint: give each injected parameter a value: per caller, from a claim of the caller's credential (configure them with --keys FILE or --keys-env VAR, whose keys carry claims, or accept JWTs with --jwt-secret-env VAR or --jwt-key FILE), the claim of the parameter's name or the one --claim PARAM=CLAIM names; or one value for every request with --inject NAME=VALUE or in the project bindings (bindings.gram)"
	}
	return "  hint: give each injected parameter a value with --inject NAME=VALUE, or in the project bindings (bindings.gram)"
}

// boundInjects returns the --inject values with those of the bindings file
// added, for the names a tool of the agents injects and no --inject gives:
// the list of NAME=VALUE and the values.
func (o *runOptions) boundInjects(agents []*schema.Agent, injected map[string]any) ([]string, map[string]any) {
	if len(o.bound.Injects) == 0 {
		return o.injects, injected
	}
	list := slices.Clone([]string(o.injects))
	decls, _ := project.Injections(agents)
	for _, n := range slices.Sorted(maps.Keys(o.bound.Injects)) {
		if decls[n] == nil || slices.Contains(o.perRequest, n) {
			continue // not injected, or each request's own (gramc serve)
		}
		if injected == nil {
			injected = map[string]any{}
		}
		injected[n] = project.ParseInjected(o.bound.Injects[n])
		list = append(list, n+"="+o.bound.Injects[n])
	}
	return list, injected
}
