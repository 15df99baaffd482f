package binding

// The tool library of a run and the checks before its first model call:
// the tools bind, and the --inject and --tool names and values fit them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/mcp"
	"github.com/gramlang/gram/schema"
)

// usageErr returns a usage error of the command.
func (s *Setup) usageErr(format string, a ...any) error {
	return fail(Usage, s.Cmd+": "+format, a...)
}

// also returns the error that reports err and then more, with err's kind;
// more (its kind ignored) may be nil.
func also(err, more error) error {
	if more == nil {
		return err
	}
	kind := Failed
	var be *Error
	if errors.As(err, &be) {
		kind = be.Kind
	}
	return Lines(kind, err.Error(), more.Error())
}

// Bind builds the tool library of agents (see [Setup.ToolLibrary]) and
// checks, before any model call, that their tools bind to it and that the
// --inject and --tool names and values fit them (see preflight). It
// returns the library, the injected values fitted to their declared types,
// and the function that closes the MCP servers; the error reports every
// problem at once. nameAgents puts the agent's name before each binding
// problem, as do several agents (those that agents call or hand off to
// among them). The injected parameters of PerRequest need no value here:
// each request brings its own.
func (s *Setup) Bind(ctx context.Context, agents []*schema.Agent, logger *slog.Logger, injected map[string]any, nameAgents bool) (*runtime.Library, map[string]any, func(), error) {
	agents = s.Tree.Reachable(agents...) // the sub-agents' and handed-to agents' tools too
	nameAgents = nameAgents || len(agents) > 1
	list, injected := s.boundInjects(agents, injected)
	injected, problems, strays := coerceInjects(agents, list, injected)
	problems = append(problems, unknownTools(agents, s.Tools)...)
	var refused []string // names whose value coerceInjects refused
	for _, n := range SpecNames(s.Injects) {
		if _, ok := injected[n]; !ok {
			refused = append(refused, n)
		}
	}
	refused = append(refused, s.PerRequest...)
	need := []string{} // not nil: only these MCP tools are bound
	for _, a := range agents {
		for _, t := range a.Tools {
			need = append(need, t.Name)
		}
	}
	lib, closeTools, err := s.ToolLibrary(ctx, logger, need)
	if err != nil {
		return nil, nil, nil, also(err, SetupError(s.Cmd, problems, nil, false, len(strays) > 0))
	}
	var bindErrs []error
	config := false
	for _, a := range agents {
		errs, c := preflight(a, s.Tree, lib, injected, refused)
		for _, err := range errs {
			if nameAgents {
				err = fmt.Errorf("agent %s: %w", a.Name, err)
			}
			bindErrs = append(bindErrs, err)
		}
		config = config || c
	}
	if err := SetupError(s.Cmd, problems, bindErrs, config, len(strays) > 0); err != nil {
		closeTools()
		return nil, nil, nil, err
	}
	return lib, injected, closeTools, nil
}

// ToolLibrary builds the tool library (see mcp.Assemble): the built-in
// tools, replaced by the --tool programs of the same name, then the tools
// of the MCP servers in the order given, each adding the names not bound
// yet; when need is not nil, only the MCP tools it names. It starts the
// servers; call the returned function to close them.
func (s *Setup) ToolLibrary(ctx context.Context, logger *slog.Logger, need []string) (*runtime.Library, func(), error) {
	tools, schemas, err := s.flagTools()
	if err != nil {
		return nil, nil, err
	}
	a := mcp.Assembly{Tools: tools, Servers: s.MCP, Need: need, Headers: s.header(),
		Logger: logger, CallTimeout: s.ToolTimeout, StartTimeout: StartTimeout(s.MCPTimeout), Elicitor: s.Elicitor}
	for _, p := range s.Bound.Programs {
		a.Programs = append(a.Programs, mcp.Program{Name: p.Name, Command: p.Command})
	}
	if s.LogLevel != "off" && s.LogLevel != "" {
		a.Stderr = s.Stderr
	}
	lib, closeTools, err := mcp.Assemble(ctx, a)
	var re *mcp.RegisterError
	switch {
	case err == nil:
		return lib, closeTools, nil
	case errors.As(err, &re) && re.Program:
		return nil, nil, fail(Config, "%s: %s: %v", s.Cmd, s.Bound.Path, err)
	case errors.As(err, &re):
		return nil, nil, s.usageErr("--tool-schema %s=%s: %v", re.Tool, schemas[re.Tool], strings.TrimPrefix(re.Err.Error(), "runtime: "))
	case ctx.Err() != nil:
		return nil, nil, fail(Interrupted, "%s: interrupted", s.Cmd)
	}
	return nil, nil, fail(Failed, "%s: %v%s", s.Cmd, err, TimeoutHint(err))
}

// flagTools returns the --tool programs, each with the schema its
// --tool-schema file gives, and those files by tool name.
func (s *Setup) flagTools() ([]runtime.Tool, map[string]string, error) {
	schemas := map[string]string{}
	for _, spec := range s.ToolSchemas {
		name, file, _ := strings.Cut(spec, "=")
		schemas[strings.TrimSpace(name)] = file
	}
	var tools []runtime.Tool
	for _, spec := range s.Tools {
		name, command, _ := strings.Cut(spec, "=")
		name = strings.TrimSpace(name)
		tool := runtime.ExecTool(name, command, s.ToolTimeout)
		if file, ok := schemas[name]; ok {
			data, err := inputfile.ReadHinted(file, s.MaxFileSize, inputfile.GiveFile)
			if err != nil {
				return nil, nil, s.usageErr("--tool-schema %s: %v", name, err)
			}
			tool.Parameters = json.RawMessage(data)
			if err := runtime.CheckSchema(tool.Parameters); err != nil {
				return nil, nil, s.usageErr("--tool-schema %s=%s: tool %q: %v", name, file, name, err)
			}
		}
		tools = append(tools, tool)
	}
	return tools, schemas, nil
}

// StartTimeout returns the [mcp.Config.StartTimeout] of an --mcp-timeout
// value, where 0 means no limit.
func StartTimeout(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}

// TimeoutHint returns, for an MCP server that did not answer a step of the
// start of its session in time, a line saying how to allow it more; "" for
// any other error.
func TimeoutHint(err error) string {
	var te *mcp.StartTimeoutError
	if !errors.As(err, &te) {
		return ""
	}
	return "\n  hint: a server that is slow to start can be given longer with --mcp-timeout DURATION (e.g. --mcp-timeout 2m)"
}

// BindHints returns how to fix the binding problems in err: a tool
// missing from the library, a declaration looser than its implementation.
func BindHints(err error) []string {
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
	for _, name := range SpecNames(specs) {
		if slices.Contains(names, name) {
			continue
		}
		msg := fmt.Sprintf("--tool %s: the agent has no tool %q; %s", name, name, suggest.Available("tools", name, names))
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
		if tree == nil {
			break
		}
		if a := tree.Agent(name); a != nil {
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

// SetupError returns the error that reports the problems found before a
// run of the command cmd, each on a line, with hints: a [Config] error
// for configuration problems, [Failed] when tools only failed to bind; nil
// when there is nothing to report. stray says that an --inject name is
// one no tool injects.
func SetupError(cmd string, problems []string, bindErrs []error, config, stray bool) error {
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
	lines = append(lines, BindHints(joined)...)
	if config || len(problems) > 0 {
		if stray || injectionProblem(joined) {
			lines = append(lines, injectHint(cmd))
		}
		return fail(Config, "%s", strings.Join(lines, "\n"))
	}
	return fail(Failed, "%s", strings.Join(lines, "\n"))
}

// injectHint says how to give the injected parameters their values in
// the command cmd: gramc serve also takes them from each caller's claims.
func injectHint(cmd string) string {
	if cmd == "gramc serve" {
		return "  hint: give each injected parameter a value: per caller, from a claim of the caller's credential (configure them with --keys FILE or --keys-env VAR, whose keys carry claims, or accept JWTs with --jwt-secret-env VAR or --jwt-key FILE), the claim of the parameter's name or the one --claim PARAM=CLAIM names; or one value for every request with --inject NAME=VALUE or in the project bindings (bindings.gram)"
	}
	return "  hint: give each injected parameter a value with --inject NAME=VALUE, or in the project bindings (bindings.gram)"
}
