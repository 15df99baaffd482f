package main

// gramc run: run an agent of a gram file, one conversation, turn by turn.

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

const runHelp = `Usage: gramc run FILE|DIR|- [--agent NAME] [-m MESSAGE]... [--history FILE] [--tool NAME=COMMAND]...
                 [--mcp COMMAND]... [--mcp-url URL]...
                 [--json | --json=final] [--trace] [--record FILE | --replay FILE]
                 [--base-url URL] [--max-iterations N] [flags]

Runs an agent of a gram file, or of the package of a directory DIR. A file
is compiled with the other files of its directory's package, so its agents
may use the tools they declare; a tree (DIR/...) is refused, as the agents
of one package are run: name its directory or file (gramc run DIR --agent
NAME). Each -m is one user turn of one conversation;
without -m, turns are read from standard input, one per line of at most 4 MB,
and on a terminal gramc starts an interactive conversation (Ctrl-D ends it).
The files given (the agent file, --replay, --history, --tool-schema) are read
only when they are regular files within --max-file-size (256 MB by default).

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
On a terminal, control characters in what the model and the tools write
(escapes that would set the title or clear the screen) are shown as
visible characters; piped output and --json keep the bytes as they are.
A streamed answer that breaks off after some of its text was shown is an
error (exit 1) that keeps that text in the conversation; it is not asked
for again, since what was shown cannot be taken back. A stream that fails
before any text was shown is retried like any failed call, unless the
server sent something that is not an answer (an error event, an event that
is not a chunk, no chunk, [DONE] without a finish_reason): that is said.

Tools are bound by name to the built-in library (sayHello, sayGoodbye,
currentTime) and to the programs given with --tool NAME=COMMAND: COMMAND runs
with sh -c, reads the arguments as one JSON object on standard input (the
model's, validated, with the defaults of the parameters it left out filled
in and the --inject values of injected parameters set) and prints its result
on standard output (JSON if it parses as JSON, text otherwise). Every result
is checked against the declared return type (any result fits String): one
that does not fit fails the call, and the model is told why. A non-zero exit is a tool error with standard error as message
(a program killed by a signal names the signal). The standard error of a
program that succeeds is logged at --log-level debug. A program that exits
while a process it started still holds its standard output gives what it
wrote within a second, and that process is stopped (a warning says so).
--mcp COMMAND starts an MCP server (COMMAND runs with sh -c and speaks MCP on
its standard input and output) and --mcp-url URL reaches one over streamable
HTTP; their tools are bound too. A name is bound to the first source that has
it: the built-in tools and --tool programs, then the MCP servers in the order
given. A server runs for the whole session and is shut down at the end or on
Ctrl-C.

The project's bindings file (the nearest bindings.gram, in the file's
directory or a parent up to the repository root, the directory holding
.git, or else the file system's root; --bindings FILE names another,
--bindings none uses none) binds tools to programs and MCP servers,
injects values, and sets the model endpoint and agents' models; the flags
override it. A file found that another user owns or could change (writable
by others, or by a group not the user's own, or in a directory they can
write to) is refused (exit 3) unless GRAM_TRUSTED_BINDINGS lists it (paths
separated by ":", * for all). An environment variable it refers to that is
not set is a configuration error (exit 3) before any model call.

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
(a URL without a path gets /v1), and then no key is needed. The project's
bindings file may give the endpoint with the variable holding its key,
(:Model {baseURL: "...", apiKey: {env: "NAME"}}): that variable is used
instead of OPENAI_API_KEY unless --base-url replaces the endpoint.

--history FILE continues a conversation: FILE is a JSON list of messages
({"role": "user", "content": "..."}, assistant messages with their tool
calls, tool messages with the toolCallId they answer), a response printed by
--json=final, the events printed by --json, or a --record recording (its
last request and answer). It is checked
before any model call: a role other than user, assistant and tool (the
agent's instruction is the system message), a user message without content,
a tool call that no tool message answers before the next message, or a tool
message whose call id or tool name matches no earlier call is an error
naming the message. Without -m, a history that ends with a user message is
answered first. User messages are sanitised before they are sent: control
characters other than newline and tab and the bidirectional embeddings,
overrides and isolates (U+202A-U+202E, U+2066-U+2069) are removed, and
bytes that are not UTF-8 (in the messages or the --history file) become
U+FFFD, with a warning for each kind of change naming the characters and
the messages.

--record FILE saves every model request and response (API keys redacted);
FILE must be new, empty or an earlier recording (a symbolic link is followed):
another file is kept, with a usage error, unless --force is given. A file the
command reads (the agent file and the other files of its package, the
bindings file, --history, --tool-schema), under any name, and what is not a
regular file are never replaced, even with --force.
--replay FILE answers from such a file with no network and no key (only the
model is replayed: tools still run, live), and fails
if a request differs from the recorded one, or if the file is malformed (an
interaction no session could have recorded: the error names the file and the
interaction). --trace prints each request and
response on standard error, and what each --tool program wrote on its
standard error (under "--- tool NAME (call ID): standard error"), secrets
masked; without it, that is logged at --log-level debug. A replayed session is streamed if and only if
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
server sent "message": null), "empty_answer" (neither text nor tool calls;
the conversation goes on). A 2xx answer that is not JSON, is an error
object (its message is shown) or cannot be decompressed is an error at once,
not retried. A redirect to another server is not followed (a configuration
error).

Exit codes: 0 every turn completed; 1 errors in the file, an agent or
model error, or a turn that did not complete (one of the statuses above); 2
usage or I/O errors (including a --record file that cannot be written,
found before any model call or, if it fails later, when it happens); 3 configuration errors (e.g. OPENAI_API_KEY not
set or rejected by the server (401/403), an injected parameter without a
valid --inject value, a --tool or
--inject name that names nothing); 130 interrupted (Ctrl-C).

Flags:
`

func runRun(e *env, args []string) error {
	fs := newFlags(e, "run", runHelp)
	o := runOptions{cmd: "gramc run"}
	fs.StringVar(&o.agent, "agent", "", "the agent to run (needed when the file has several)")
	fs.Var(&o.messages, "m", "a user message; repeat for several turns")
	fs.Var(&o.messages, "message", "same as -m")
	fs.Var(jsonFlag{&o}, "json", "print the events of each turn as JSON, one per line; --json=final prints each turn's response")
	fs.StringVar(&o.history, "history", "", "continue the conversation in FILE (JSON: messages, a --json response or a recording)")
	o.addSharedFlags(fs)
	colorFlag(e, fs)
	if err := o.parseFile(e, fs, args, true, "give exactly one agent file (see gramc run --help)"); err != nil {
		return err
	}
	logger, injected, err := o.setup(e)
	if err != nil {
		return err
	}
	if o.file == "-" && len(o.messages) == 0 {
		return o.usageErr("with the agent file on standard input, give the messages with -m")
	}
	agent, conv, err := o.loadAgent(e, o.history)
	if err != nil {
		return err
	}

	// The tools. Ctrl-C from here on closes the MCP sessions cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	lib, injected, closeTools, err := o.bind(ctx, e, []*schema.Agent{agent}, logger, injected, false)
	if err != nil {
		return err
	}
	defer closeTools()

	// The model.
	model, replayer, err := makeModel(e, agent, o, logger)
	if err != nil {
		return err
	}

	// The conversation.
	s := &session{e: e, o: o, agent: agent, lib: lib, opts: o.runtimeOptions(model, logger, injected), conv: conv}
	if !o.json && !o.trace && o.logLevel == "off" && isTerminal(e.stderr) {
		s.spin = newSpinner(e.stderr)
	}
	s.liveMode()
	err = s.converse(ctx)
	if ctx.Err() != nil {
		return fail(exitInterrupted, "%s", joinLines(message(err), "gramc run: interrupted"))
	}
	if replayer != nil && err == nil {
		if n := replayer.Remaining(); n > 0 {
			fmt.Fprintf(e.stderr, "gramc run: warning: the recording has %d more requests than this run made\n", n)
		}
	}
	return err
}

// loadAgent compiles the agent file and returns the agent to run, with the
// conversation of the --history file, if one is given.
func (o *runOptions) loadAgent(e *env, history string) (*schema.Agent, runtime.Conversation, error) {
	prog, err := o.loadProgram(e, o.file)
	if err != nil {
		return nil, nil, err
	}
	agent, msg := pickAgent(prog, o.agent, prog.File.Path)
	if agent == nil {
		return nil, nil, o.usageErr("%s", msg)
	}
	o.applyModels(agent)
	var conv runtime.Conversation
	if history != "" {
		data, err := readOther(e, history)
		if err != nil {
			return nil, nil, o.usageErr("--history: %v", err)
		}
		if conv, err = runtime.ParseConversation(data, agent.Instruction); err != nil {
			return nil, nil, o.usageErr("--history %s: %v", history, err)
		}
		if what := jsonvalue.ReplacedText(jsonvalue.Replacements(data)); what != "" {
			fmt.Fprintf(e.stderr, "gramc run: warning: --history %s: %s replaced by U+FFFD\n", history, what)
		}
	}
	return agent, conv, nil
}

// pickAgent returns the named agent, or the file's only agent; otherwise nil
// and what is wrong.
func pickAgent(prog *schema.Program, name, path string) (*schema.Agent, string) {
	names := agentNames(prog)
	switch {
	case name != "":
		if a := prog.Agent(name); a != nil {
			return a, ""
		}
		return nil, fmt.Sprintf("no agent %q in %s; %s", name, path, available("agents", name, names))
	case len(prog.Agents) == 1:
		return prog.Agents[0], ""
	case len(prog.Agents) == 0:
		return nil, fmt.Sprintf("%s has no agent", path)
	}
	return nil, fmt.Sprintf("%s has several agents: choose one with --agent (%s)", path, strings.Join(names, ", "))
}
