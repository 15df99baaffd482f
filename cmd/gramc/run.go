package main

// gramc run: run an agent of a gram file, one conversation, turn by turn.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// exitConfig is the exit code of configuration errors (a missing API key,
// no base URL for the provider).
const exitConfig = 3

// replayBaseURL is the base URL used with --replay; nothing is ever sent to
// it.
const replayBaseURL = "http://replay.invalid/v1"

const runHelp = `Usage: gramc run FILE [--agent NAME] [-m MESSAGE]... [--history FILE] [--tool NAME=COMMAND]...
                 [--mcp COMMAND]... [--mcp-url URL]...
                 [--json | --json=final] [--trace] [--record FILE | --replay FILE]
                 [--base-url URL] [--max-iterations N] [flags]

Runs an agent of a gram file. Each -m is one user turn of one conversation;
without -m, turns are read from standard input, one per line, and on a
terminal gramc starts an interactive conversation (Ctrl-D ends it).

What a turn prints on standard output:
  a terminal      the answer as the model writes it (streamed), and each
                  tool call when it starts, its line then completed with
                  the result ("name {args} → result", "✗ error" if it failed)
  not a terminal  each tool call's line when it finishes, then the answer
                  once it is complete (not streamed)
  --json          the turn's events, one JSON object per line, as they
                  happen (streamed): text_delta {text}, tool_call_started
                  {callId, name, arguments}, tool_call_finished {tool:
                  result or error, durationMs}, model_turn_finished {usage,
                  finishReason, toolCalls, durationMs}, run_finished
                  {response: what --json=final prints}
  --json=final    the turn's response as one JSON document once it is
                  complete (not streamed)
A streamed answer that breaks off after some of its text was shown is an
error (exit 1) that keeps that text in the conversation; it is not asked
for again, since what was shown cannot be taken back. A stream that fails
before any text was shown is retried like any failed call.

Tools are bound by name to the built-in library (sayHello, sayGoodbye,
currentTime) and to the programs given with --tool NAME=COMMAND: COMMAND runs
with sh -c, reads the validated arguments as a JSON object on standard input
and prints its result on standard output (JSON if it parses as JSON, text
otherwise); a non-zero exit is a tool error with standard error as message.
--mcp COMMAND starts an MCP server (COMMAND runs with sh -c and speaks MCP on
its standard input and output) and --mcp-url URL reaches one over streamable
HTTP; their tools are bound too. A name is bound to the first source that has
it: the built-in tools and --tool programs, then the MCP servers in the order
given. A server runs for the whole session and is shut down at the end or on
Ctrl-C.

--tool-schema NAME=FILE gives the JSON Schema of the arguments the --tool
program NAME accepts. An implementation with a schema (an MCP tool's
inputSchema, a --tool-schema) binds when it accepts every arguments object
the declaration accepts: the declaration may be stricter (no extra
properties, a narrower enum, tighter bounds, a parameter required that the
implementation has as optional), never looser. Otherwise the run stops before
the first model call, naming the tool and the JSON pointer where the
declaration is looser. gramc mcp import prints declarations that bind.

The model comes from the agent's "Provider/model-id": OpenAI needs
OPENAI_API_KEY (OPENAI_BASE_URL changes the server); Ollama uses OLLAMA_HOST
or http://localhost:11434/v1; OpenAICompatible needs --base-url or
OPENAI_BASE_URL. --base-url points any agent at an OpenAI-compatible server
(a URL without a path gets /v1), and then no key is needed.

--history FILE continues a conversation: FILE is a JSON list of messages
({"role": "user", "content": "..."}, assistant messages with their tool
calls, tool messages with the toolCallId they answer), a response printed by
--json=final, the events printed by --json, or a --record recording (its
last request and answer). It is checked
before any model call: an unknown role, a message without content or a tool
message that answers no earlier call is an error naming the message.

--record FILE saves every model request and response (API keys redacted);
--replay FILE answers from such a file with no network and no key, and fails
if a request differs from the recorded one. --trace prints each request and
response on standard error. A replayed session is streamed if and only if
the recording was, whatever the output.

--inject NAME=VALUE reads VALUE as JSON, or as text when it is not JSON,
then fits it to the declared type of the injected parameter: for a String
parameter, user_id=42 is the string "42". Before the first model call,
every injected parameter of every tool of the agent must have a value of
its declared type and format (e.g. "uuid"), and every --inject and --tool
name must name an injected parameter or a tool of the agent; all the
problems are reported at once, with exit code 3.

A turn whose answer is not complete ends with a warning and a status other
than "completed" (see --json=final): "max_iterations_reached" (the iteration
limit; the answer is the model's summary or, without one, "I need more time
to process this request. Please try breaking it into smaller steps."),
"truncated" (finish_reason "length": cut at the token limit),
"content_filtered" (finish_reason "content_filter"), "no_message" (the
server sent "message": null). A 2xx answer that is not JSON is an error at
once, not retried.

Exit codes: 0 every turn completed; 1 errors in the file, an agent or
model error, or a turn that did not complete (one of the statuses above); 2
usage or I/O errors (including a --record file that cannot be written,
found before any model call); 3 configuration errors (e.g. OPENAI_API_KEY not
set or rejected by the server (401/403), an injected parameter without a
valid --inject value, a --tool or
--inject name that names nothing); 130 interrupted (Ctrl-C).

Flags:
`

// listFlag collects a repeatable string flag.
type listFlag []string

// String implements flag.Value.
func (l *listFlag) String() string { return strings.Join(*l, ", ") }

// Set implements flag.Value: each use of the flag adds a value.
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// runOptions are the parsed flags of gramc run and gramc mcp serve.
type runOptions struct {
	cmd            string // the command, for messages: "gramc run"
	file, agent    string
	messages       listFlag
	tools          listFlag
	toolSchemas    listFlag
	mcp            []mcpSource
	injects        listFlag
	json, trace    bool
	jsonEvents     bool // --json (not --json=final): events, one per line
	record, replay string
	baseURL        string
	maxIterations  int
	noSummary      bool
	logLevel       string
	toolTimeout    time.Duration
	resultLimit    int
	headers        http.Header // --header, sent to the --mcp-url servers
	secrets        []string    // every secret the process holds
}

// mcpSource is an MCP server named on the command line: a command
// (--mcp) or a URL (--mcp-url).
type mcpSource struct {
	command, url string
}

// mcpFlag collects --mcp and --mcp-url values in one list, in the order
// given.
type mcpFlag struct {
	list *[]mcpSource
	url  bool
}

// String implements flag.Value.
func (f mcpFlag) String() string { return "" }

// Set implements flag.Value.
func (f mcpFlag) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("empty value")
	}
	if f.url {
		*f.list = append(*f.list, mcpSource{url: v})
	} else {
		*f.list = append(*f.list, mcpSource{command: v})
	}
	return nil
}

// addSharedFlags registers the flags gramc run and gramc mcp serve share:
// the tool library, the model, recording and the runs.
func (o *runOptions) addSharedFlags(fs *flag.FlagSet) {
	o.addBindingFlags(fs)
	fs.StringVar(&o.record, "record", "", "save the model requests and responses to `FILE`")
	fs.StringVar(&o.replay, "replay", "", "answer from a recording `FILE` instead of a model")
}

// addBindingFlags registers the flags of the tool library, the model and
// the runs, which gramc test shares too.
func (o *runOptions) addBindingFlags(fs *flag.FlagSet) {
	fs.Var(&o.tools, "tool", "bind tool NAME to a program: NAME=COMMAND (repeatable)")
	fs.Var(&o.toolSchemas, "tool-schema", "the JSON Schema of the arguments the --tool program NAME accepts: NAME=FILE (repeatable)")
	fs.Var(mcpFlag{list: &o.mcp}, "mcp", "bind tools to the MCP server that `COMMAND` starts (stdio; repeatable)")
	fs.Var(mcpFlag{list: &o.mcp, url: true}, "mcp-url", "bind tools to the MCP server at `URL` (streamable HTTP; repeatable)")
	fs.Var(headerFlag{&o.headers}, "header", "send the HTTP header `NAME: VALUE` to the --mcp-url servers (repeatable; the value is masked in all output)")
	fs.Var(&o.injects, "inject", "set an injected parameter: NAME=VALUE, VALUE as JSON or text (repeatable)")
	fs.BoolVar(&o.trace, "trace", false, "print each model request and response on standard error")
	fs.StringVar(&o.baseURL, "base-url", "", "the `URL` of an OpenAI-compatible server, e.g. http://localhost:11434/v1")
	fs.IntVar(&o.maxIterations, "max-iterations", 0, "override the agent's maxIterations")
	fs.BoolVar(&o.noSummary, "no-summary", false, "at the iteration limit, do not ask the model for a summary")
	fs.StringVar(&o.logLevel, "log-level", "off", "log on standard error at `LEVEL`: debug, info, warn, error or off")
	fs.DurationVar(&o.toolTimeout, "tool-timeout", runtime.DefaultExecTimeout, "time limit of each --tool program run and MCP tool call")
	fs.IntVar(&o.resultLimit, "result-limit", runtime.DefaultResultLimit, "size limit in bytes of a tool result sent to the model (0: none)")
}

// usageErr prints a usage error and returns its exit code.
func (o *runOptions) usageErr(e *env, format string, a ...any) int {
	fmt.Fprintf(e.stderr, o.cmd+": "+format+"\n", a...)
	return exitUsage
}

// setup checks the shared flags and returns the logger and the injected
// values, or an exit code (-1 to go on).
func (o *runOptions) setup(e *env) (*slog.Logger, map[string]any, int) {
	o.secrets = o.protect(e)
	if o.record != "" && o.replay != "" {
		return nil, nil, o.usageErr(e, "--record and --replay cannot be used together")
	}
	if o.maxIterations < 0 {
		return nil, nil, o.usageErr(e, "--max-iterations must be at least 1")
	}
	for _, spec := range o.tools {
		name, command, ok := strings.Cut(spec, "=")
		if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(command) == "" {
			return nil, nil, o.usageErr(e, "--tool %q: write NAME=COMMAND", spec)
		}
	}
	for _, spec := range o.toolSchemas {
		name, file, ok := strings.Cut(spec, "=")
		if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(file) == "" {
			return nil, nil, o.usageErr(e, "--tool-schema %q: write NAME=FILE", spec)
		}
		if !slices.ContainsFunc(o.tools, func(t string) bool {
			n, _, _ := strings.Cut(t, "=")
			return strings.TrimSpace(n) == strings.TrimSpace(name)
		}) {
			return nil, nil, o.usageErr(e, "--tool-schema %q: there is no --tool %s=COMMAND to give a schema to", spec, strings.TrimSpace(name))
		}
	}
	logger, err := newLogger(e.stderr, o.logLevel)
	if err != nil {
		return nil, nil, o.usageErr(e, "%v", err)
	}
	injected, err := parseInjects(o.injects)
	if err != nil {
		return nil, nil, o.usageErr(e, "%v", err)
	}
	return logger, injected, -1
}

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
	return append(opts, o.streamingOptions()...)
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

func runRun(e *env, args []string) int {
	fs := newFlags(e, "run", runHelp)
	o := runOptions{cmd: "gramc run"}
	fs.StringVar(&o.agent, "agent", "", "the agent to run (needed when the file has several)")
	fs.Var(&o.messages, "m", "a user message; repeat for several turns")
	fs.Var(&o.messages, "message", "same as -m")
	fs.Var(jsonFlag{&o}, "json", "print the events of each turn as JSON, one per line; --json=final prints each turn's response")
	history := fs.String("history", "", "continue the conversation in FILE (JSON: messages, a --json response or a recording)")
	o.addSharedFlags(fs)
	colorFlag(e, fs)
	files, code := parseInterleaved(e, fs, args)
	if code >= 0 {
		return code
	}
	if len(files) != 1 {
		return o.usageErr(e, "give exactly one agent file (see gramc run --help)")
	}
	o.file = files[0]
	logger, injected, code := o.setup(e)
	if code >= 0 {
		return code
	}
	if o.file == "-" && len(o.messages) == 0 {
		return o.usageErr(e, "with the agent file on standard input, give the messages with -m")
	}

	// The agent.
	prog, code := o.loadProgram(e, o.file)
	if code >= 0 {
		return code
	}
	agent, msg := pickAgent(prog, o.agent, prog.File.Path)
	if agent == nil {
		return o.usageErr(e, "%s", msg)
	}
	var conv runtime.Conversation
	if *history != "" {
		data, err := os.ReadFile(*history)
		if err != nil {
			return o.usageErr(e, "--history: %v", err)
		}
		if conv, err = runtime.ParseConversation(data, agent.Instruction); err != nil {
			return o.usageErr(e, "--history %s: %v", *history, err)
		}
	}
	agents := []*schema.Agent{agent}
	injected, problems := coerceInjects(agents, o.injects, injected)
	problems = append(problems, unknownTools(agents, o.tools)...)

	// The tools. Ctrl-C from here on closes the MCP sessions cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	lib, closeTools, code := o.toolLibrary(ctx, e, logger)
	if code >= 0 {
		reportSetup(e, o.cmd, problems, nil, false)
		return code
	}
	defer closeTools()
	var failed []string // names whose value coerceInjects refused
	for _, n := range injectNames(o.injects) {
		if _, ok := injected[n]; !ok {
			failed = append(failed, n)
		}
	}
	bindErrs, config := preflight(agent, lib, injected, failed)
	if code := reportSetup(e, o.cmd, problems, bindErrs, config); code >= 0 {
		return code
	}

	// The model.
	model, replayer, code := makeModel(e, agent, o, logger)
	if code >= 0 {
		return code
	}

	// The conversation.
	s := &session{e: e, o: o, agent: agent, lib: lib, opts: o.runtimeOptions(model, logger, injected), conv: conv}
	if !o.json && !o.trace && o.logLevel == "off" && isTerminal(e.stderr) {
		s.spin = newSpinner(e.stderr)
	}
	s.liveMode()
	code = s.converse(ctx)
	if ctx.Err() != nil {
		fmt.Fprintln(e.stderr, "gramc run: interrupted")
		return exitInterrupted
	}
	if replayer != nil && code == exitOK {
		if n := replayer.Remaining(); n > 0 {
			fmt.Fprintf(e.stderr, "gramc run: warning: the recording has %d more requests than this run made\n", n)
		}
	}
	return code
}

// newLogger returns a text logger on w at the named level, or a logger that
// drops everything for "off".
func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	switch strings.ToLower(level) {
	case "off", "":
		return slog.New(slog.DiscardHandler), nil
	case "debug":
		l = slog.LevelDebug
	case "info":
		l = slog.LevelInfo
	case "warn", "warning":
		l = slog.LevelWarn
	case "error":
		l = slog.LevelError
	default:
		return nil, fmt.Errorf("unknown log level %q (want debug, info, warn, error or off)", level)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// parseInjects reads NAME=VALUE pairs; a VALUE that parses as JSON is that
// JSON value, otherwise the text.
func parseInjects(list []string) (map[string]any, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := map[string]any{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--inject %q: write NAME=VALUE", kv)
		}
		var x any
		dec := json.NewDecoder(strings.NewReader(v))
		dec.UseNumber()
		if err := dec.Decode(&x); err != nil || dec.More() {
			x = v
		}
		out[strings.TrimSpace(k)] = x
	}
	return out, nil
}

// coerceInjects fits the --inject values to the types of the injected
// parameters of the agents' tools: text that parsed as another JSON value
// (user_id=42) is the string "42" for a String parameter. It returns the
// fitted values and the problems: a value that does not fit the declared
// type, a name declared with different types by different tools, a name no
// tool injects (with the closest injected name). A value that does not fit
// is left out.
func coerceInjects(agents []*schema.Agent, list []string, values map[string]any) (map[string]any, []string) {
	if len(values) == 0 {
		return values, nil
	}
	raw := map[string]string{}
	for _, kv := range list {
		k, v, _ := strings.Cut(kv, "=")
		raw[strings.TrimSpace(k)] = v
	}
	type decl struct {
		tool string
		typ  *schema.Type
	}
	decls := map[string][]decl{}
	var declared []string
	seen := map[*schema.Tool]bool{}
	for _, a := range agents {
		for _, t := range a.Tools {
			if seen[t] {
				continue
			}
			seen[t] = true
			for _, p := range t.Params {
				if p.Injected {
					if len(decls[p.Name]) == 0 {
						declared = append(declared, p.Name)
					}
					decls[p.Name] = append(decls[p.Name], decl{t.Name, p.Type})
				}
			}
		}
	}
	out := map[string]any{}
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	slices.Sort(names)
	var problems []string
	for _, name := range names {
		v := values[name]
		ds := decls[name]
		if len(ds) == 0 {
			msg := fmt.Sprintf("--inject %s: no tool of the agent has an injected parameter %q", name, name)
			if c := parser.Closest(name, declared); c != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", c)
			}
			problems = append(problems, msg)
			out[name] = v // kept, to suggest it for a parameter without value
			continue
		}
		var fitted any
		ok := true
		for i, d := range ds {
			x, fits := fitInjected(d.typ, v, raw[name])
			if !fits {
				problems = append(problems, fmt.Sprintf("--inject %s=%s: tool %q declares %s as %s; give a value of that type", name, raw[name], d.tool, name, d.typ))
				ok = false
				break
			}
			if i > 0 && fmt.Sprintf("%T %#v", x, x) != fmt.Sprintf("%T %#v", fitted, fitted) {
				problems = append(problems, fmt.Sprintf("--inject %s=%s: tools %q and %q declare %s with different types (%s and %s), so the value is ambiguous",
					name, raw[name], ds[0].tool, d.tool, name, ds[0].typ, d.typ))
				ok = false
				break
			}
			fitted = x
		}
		if ok {
			out[name] = fitted
		}
	}
	return out, problems
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

// injectNames returns the names given with --inject.
func injectNames(list []string) []string {
	names := make([]string, len(list))
	for i, kv := range list {
		k, _, _ := strings.Cut(kv, "=")
		names[i] = strings.TrimSpace(k)
	}
	return names
}

// fitInjected returns the value v (read from the text raw) as a value of
// type t, and whether it fits.
func fitInjected(t *schema.Type, v any, raw string) (any, bool) {
	if t == nil {
		return v, true
	}
	switch t.Kind {
	case schema.StringType:
		if s, ok := v.(string); ok {
			return s, true
		}
		return raw, true // 42, true, null: the text as written
	case schema.IntegerType:
		n, ok := v.(json.Number)
		if !ok {
			return nil, false
		}
		if _, err := n.Int64(); err != nil {
			return nil, false
		}
		return n, true
	case schema.NumberType:
		_, ok := v.(json.Number)
		return v, ok
	case schema.BooleanType:
		_, ok := v.(bool)
		return v, ok
	case schema.ArrayType:
		_, ok := v.([]any)
		return v, ok
	case schema.ObjectType, schema.RecordType:
		_, ok := v.(map[string]any)
		return v, ok
	}
	return v, true
}

// pickAgent returns the named agent, or the file's only agent; otherwise nil
// and what is wrong.
func pickAgent(prog *schema.Program, name, path string) (*schema.Agent, string) {
	var names []string
	for _, a := range prog.Agents {
		names = append(names, a.Name)
	}
	switch {
	case name != "":
		if a := prog.Agent(name); a != nil {
			return a, ""
		}
		return nil, fmt.Sprintf("no agent %q in %s; %s", name, path, available("agents", names))
	case len(prog.Agents) == 1:
		return prog.Agents[0], ""
	case len(prog.Agents) == 0:
		return nil, fmt.Sprintf("%s has no agent", path)
	}
	return nil, fmt.Sprintf("%s has several agents: choose one with --agent (%s)", path, strings.Join(names, ", "))
}

// makeModel builds the model client of agent with its transports; see
// modelTransport and newModel.
func makeModel(e *env, agent *schema.Agent, o runOptions, logger *slog.Logger) (runtime.Model, *runtime.Replayer, int) {
	transport, replayer, code := modelTransport(e, o)
	if code >= 0 {
		return nil, nil, code
	}
	model, code := newModel(e, agent, o, transport, replayer != nil, logger)
	return model, replayer, code
}

// modelTransport returns the HTTP transport of the model clients: replay
// or the network, then recording, then tracing. It returns an exit code on
// failure, -1 otherwise.
func modelTransport(e *env, o runOptions) (http.RoundTripper, *runtime.Replayer, int) {
	key := os.Getenv("OPENAI_API_KEY")
	var transport http.RoundTripper = http.DefaultTransport
	var replayer *runtime.Replayer
	if o.replay != "" {
		rp, err := runtime.NewReplayer(o.replay)
		if err != nil {
			fmt.Fprintf(e.stderr, "%s: --replay: %v\n", o.cmd, err)
			return nil, nil, exitUsage
		}
		replayer, transport = rp, rp
	}
	secrets := append([]string{key}, o.secrets...)
	if o.record != "" {
		// Found now, not after the first model calls.
		if err := checkWritable(o.record); err != nil {
			fmt.Fprintf(e.stderr, "%s: --record: %v\n", o.cmd, err)
			return nil, nil, exitUsage
		}
		transport = runtime.NewRecorder(o.record, transport, secrets...)
	}
	if o.trace {
		transport = runtime.NewTracer(e.stderr, transport, secrets...)
	}
	return transport, replayer, -1
}

// checkWritable reports why a file cannot be written at path, without
// changing it (a file it creates to find out is removed).
func checkWritable(path string) error {
	info, err := os.Stat(path)
	switch {
	case err == nil && info.IsDir():
		return fmt.Errorf("%s is a directory; give a file name", path)
	case err == nil:
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("cannot write %s: %w", path, err)
		}
		return f.Close()
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("cannot create %s: %w", path, err)
	}
	f.Close()
	return os.Remove(path)
}

// newModel returns the model client of agent on transport (replaying a
// recording when replay is set). It returns an exit code on failure, -1
// otherwise.
func newModel(e *env, agent *schema.Agent, o runOptions, transport http.RoundTripper, replay bool, logger *slog.Logger) (runtime.Model, int) {
	client := &http.Client{Transport: transport}
	var (
		model runtime.Model
		err   error
	)
	if replay {
		model, err = runtime.NewOpenAIModel(runtime.OpenAIConfig{Provider: agent.Model.Provider, BaseURL: replayBaseURL,
			HTTPClient: client, Logger: logger, Secrets: o.secrets})
	} else {
		model, err = runtime.NewModel(agent.Model, runtime.ModelConfig{BaseURL: o.baseURL, HTTPClient: client, Logger: logger, Secrets: o.secrets})
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: %v\n", o.cmd, err)
		var ce *runtime.ConfigError
		if errors.As(err, &ce) {
			if ce.Hint != "" {
				fmt.Fprintf(e.stderr, "  hint: %s\n", ce.Hint)
			}
			fmt.Fprintln(e.stderr, "  hint: for a local OpenAI-compatible server such as Ollama, add --base-url http://localhost:11434/v1;")
			fmt.Fprintln(e.stderr, "        to try the agent without a model, replay a recording with --replay FILE")
			return nil, exitConfig
		}
		return nil, exitError
	}
	return model, -1
}

// session is one conversation with an agent.
type session struct {
	e     *env
	o     runOptions
	agent *schema.Agent
	lib   *runtime.Library
	opts  []runtime.Option
	spin  *spinner
	conv  runtime.Conversation
	mu    sync.Mutex // serializes output from tool hooks
	live  bool       // the turns are shown as they happen (live.go)
}

// converse runs the turns and returns the exit code: the worst of the
// turns'. A turn that fails (as opposed to reaching its iteration limit)
// ends a non-interactive session; an interactive one goes on unless the
// configuration is wrong.
func (s *session) converse(ctx context.Context) int {
	worst := exitOK
	if len(s.o.messages) > 0 {
		for _, m := range s.o.messages {
			code, failed := s.turn(ctx, m)
			worst = max(worst, code)
			if failed || ctx.Err() != nil {
				break
			}
		}
		return worst
	}
	interactive := isTerminal(s.e.stdin)
	if interactive {
		fmt.Fprintf(s.e.stderr, "Talking to %s (%s). Type a message; Ctrl-D ends the conversation.\n", s.agent.Name, s.agent.Model)
	}
	// Lines are read in the background, so that Ctrl-C at the prompt ends
	// the session (and shuts the MCP servers down) at once.
	lines := make(chan string)
	next := make(chan struct{})
	var readErr error
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(s.e.stdin)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
			select {
			case <-next:
			case <-ctx.Done():
				return
			}
		}
		readErr = sc.Err()
	}()
	for {
		if interactive {
			fmt.Fprint(s.e.stderr, "> ")
		}
		var (
			text string
			ok   bool
		)
		select {
		case text, ok = <-lines:
		case <-ctx.Done():
			if interactive {
				fmt.Fprintln(s.e.stderr)
			}
			return worst
		}
		if !ok {
			break
		}
		line := strings.TrimSpace(text)
		if line != "" {
			code, failed := s.turn(ctx, line)
			worst = max(worst, code)
			if ctx.Err() != nil || code == exitConfig || failed && !interactive {
				return worst
			}
		}
		select {
		case next <- struct{}{}:
		case <-ctx.Done():
			return worst
		}
	}
	if interactive {
		fmt.Fprintln(s.e.stderr)
	}
	if readErr != nil {
		fmt.Fprintf(s.e.stderr, "gramc run: reading standard input: %v\n", readErr)
		return max(worst, exitUsage)
	}
	return worst
}

// turn runs one user turn, prints it, and returns its exit code and
// whether it failed with an error.
func (s *session) turn(ctx context.Context, input string) (int, bool) {
	hooks := runtime.Hooks{
		ModelStart: func(int) { s.spin.start() },
		ModelDone:  func(int, error) { s.spin.stop() },
	}
	if !s.o.json && !s.live {
		hooks.ToolDone = func(u runtime.ToolUse) { s.printTool(u) }
	}
	opts, live := s.liveTurn(append(append([]runtime.Option(nil), s.opts...), runtime.WithHooks(hooks)))
	resp, err := runtime.Run(ctx, s.agent, s.lib, s.conv, input, opts...)
	s.spin.stop()
	if resp != nil && err == nil {
		s.conv = resp.Conversation
	}
	if live != nil {
		live.finish(resp, err)
	} else if s.o.json {
		enc := json.NewEncoder(s.e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(resp)
	} else if resp != nil && resp.Content != "" {
		fmt.Fprintln(s.e.stdout, resp.Content)
	}
	if resp != nil {
		for _, w := range resp.Warnings {
			fmt.Fprintf(s.e.stderr, "gramc run: warning: %s\n", w)
		}
	}
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return exitInterrupted, true // said once, by the caller
	}
	if err != nil {
		fmt.Fprintf(s.e.stderr, "gramc run: %v\n", err)
		var (
			ce *runtime.ConfigError
			ve *runtime.ValidationError
		)
		switch {
		case errors.As(err, &ce):
			if ce.Hint != "" {
				fmt.Fprintf(s.e.stderr, "  hint: %s\n", ce.Hint)
			}
			return exitConfig, true
		case errors.As(err, &ve):
			return exitUsage, true
		}
		return exitError, true
	}
	if resp.Status != runtime.StatusCompleted {
		return exitError, false
	}
	return exitOK, false
}

// printTool prints a finished tool call: `name {"arg":1} → result`.
func (s *session) printTool(u runtime.ToolUse) {
	s.spin.pause()
	defer s.spin.resume()
	line := toolLine(u)
	s.mu.Lock()
	fmt.Fprintln(s.e.stdout, line)
	s.mu.Unlock()
}

// clip shortens s to n runes with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// isTerminal reports whether x is a terminal (a character device other
// than the null device).
func isTerminal(x any) bool {
	for {
		u, ok := x.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		x = u.Unwrap()
	}
	f, ok := x.(*os.File)
	if !ok || f == nil {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return false
	}
	return true
}

// spinner shows activity on a terminal while the model thinks. A nil
// spinner does nothing.
type spinner struct {
	w       io.Writer
	mu      sync.Mutex
	running bool
	paused  bool
	done    chan struct{}
	wg      sync.WaitGroup
}

func newSpinner(w io.Writer) *spinner { return &spinner{w: w} }

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// start shows the spinner until stop.
func (sp *spinner) start() {
	if sp == nil {
		return
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.running {
		return
	}
	sp.running = true
	sp.done = make(chan struct{})
	sp.wg.Add(1)
	go sp.loop(sp.done)
}

func (sp *spinner) loop(done chan struct{}) {
	defer sp.wg.Done()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		sp.mu.Lock()
		if !sp.paused {
			fmt.Fprintf(sp.w, "\r%s thinking…", spinFrames[i%len(spinFrames)])
		}
		sp.mu.Unlock()
		select {
		case <-done:
			return
		case <-t.C:
		}
	}
}

// stop hides the spinner.
func (sp *spinner) stop() {
	if sp == nil {
		return
	}
	sp.mu.Lock()
	if !sp.running {
		sp.mu.Unlock()
		return
	}
	sp.running = false
	close(sp.done)
	sp.mu.Unlock()
	sp.wg.Wait()
	sp.mu.Lock()
	fmt.Fprint(sp.w, "\r\033[K")
	sp.mu.Unlock()
}

// pause and resume keep the spinner off the screen while a line is printed.
func (sp *spinner) pause() {
	if sp == nil {
		return
	}
	sp.mu.Lock()
	sp.paused = true
	if sp.running {
		fmt.Fprint(sp.w, "\r\033[K")
	}
	sp.mu.Unlock()
}

func (sp *spinner) resume() {
	if sp == nil {
		return
	}
	sp.mu.Lock()
	sp.paused = false
	sp.mu.Unlock()
}
