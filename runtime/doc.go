// Package runtime runs the agents of a compiled gram file: it binds each
// tool specification of an agent to an implementation from a tool library,
// then drives the model's tool-calling loop until the model answers.
//
// # Entry points
//
//   - [Library] holds tool implementations ([Tool]) by name. [Library.Bind]
//     binds an agent's tool specifications to them (late binding: the same
//     agent file runs against different implementations, e.g. for A/B
//     tests), checking that the implementation's JSON Schema is compatible
//     with the specification's: every arguments object the specification
//     accepts must be accepted by the implementation (the specification may
//     be stricter, never looser; see [SchemaCompatible]).
//   - [Run] executes one user turn of a conversation: it sends the agent's
//     instruction, the conversation and the tool definitions to a [Model],
//     runs the tool calls of each response (concurrently when the agent
//     allows it), feeds results and errors back, and stops on a text answer
//     or after the agent's maxIterations model calls. The [Response] keeps
//     the answer, every tool use, the status, token usage and the updated
//     [Conversation] for the next turn.
//   - Trees of agents: an agent listed among another's tools
//     ([schema.Tool.Agent]) runs, when the model calls it, as a nested run
//     (subrun.go) with its own instruction, tools, limits and model, its
//     answer the tool's result and its [Response] the [ToolUse]'s Run; an
//     agent's handoffs ([schema.Agent.Handoffs]) are tools
//     transfer_to_AGENT that pass the conversation to another agent, which
//     answers ([Response.Agent]; handoff.go). The agents are found in the
//     program of [WithProgram]. The runs of a tree share the library, the
//     injected values, the events, the context and two limits:
//     [WithMaxDepth] and [WithMaxModelCalls]; [WithMaxHandoffs] bounds the
//     handoffs of a turn. Every run has a RunID, which its events carry
//     with their parent's.
//   - Streaming: [WithEvents] delivers a run's [Event]s as they happen
//     (text deltas, tool calls started and finished, each model turn's
//     usage and finish reason, the end of the run) to a callback, and
//     [Events] yields them as an iterator; the model's answers are then
//     streamed when the model is a [StreamingModel] ([OpenAIModel] is:
//     openai-go's chat completion stream, assembled by its accumulator;
//     [AnthropicModel] is: the Messages API's event stream, its text and
//     tool_use input deltas assembled by the SDK's Message.Accumulate;
//     [GeminiModel] is: the SDK's streamGenerateContent, its chunks' text
//     passed on and their function calls collected).
//     [WithStreaming] turns streaming on or off explicitly. A stream that
//     breaks after text was delivered is an [LLMError] of kind
//     [LLMStreamCut], its text kept in the conversation; one that breaks
//     before is retried. The transports below pass event streams through
//     as they arrive, recording, replaying, tracing and masking them.
//   - Approvals (approval.go): a call of a tool declared with approval:
//     true ([schema.Tool.Approval]) waits for a person's [Decision]: the
//     [Approver] of [WithApprover] is asked, once per reply, after the
//     reply's other calls ran; without one the run stops with
//     [StatusAwaitingApproval] and [Response.Pending], and
//     [WithDecisions] goes on from its conversation. A denied call tells
//     the model so, with the reason; an approval may edit the arguments.
//   - Checkpoints (checkpoint.go): with [WithCheckpointer], every model
//     call and tool call is a step a durable store records and returns on
//     a replay, so a run that a process left unfinished is finished by
//     another from its steps; tools read the step's [IdempotencyKey].
//   - [Prepare] makes, without a model call, every check of a run's setup
//     and reports all problems at once ([*PrepareError]): tools that do not
//     bind, injected parameters without a value of their type and format,
//     injected values no tool takes. [Run] itself refuses to start when an
//     injected parameter has no valid value, and checks the conversation it
//     is given ([Conversation.Validate]; [ParseConversation] reads one from
//     JSON). Tool results are checked against the declared return type.
//   - Models: [OpenAIModel] speaks the OpenAI Chat Completions API through
//     github.com/openai/openai-go/v3 (OpenAI, Ollama and any
//     OpenAI-compatible server; see [NewModel] for how a provider is
//     configured); [AnthropicModel] speaks Anthropic's Messages API through
//     github.com/anthropics/anthropic-sdk-go/v2; [GeminiModel] speaks the
//     Gemini API's generateContent through google.golang.org/genai;
//     [WithFallbacks] gives the models a failed call moves on to
//     ([FallsBack] says which failures do); [Scripted] answers from a queue of replies, for tests and
//     demos. Package github.com/gramlang/gram/runtime/replay holds the
//     HTTP transports around the client that record a session, replay it
//     without a network, trace it, and mask secrets.
//   - Typed results: an agent whose signature element declares a result
//     type ([schema.Agent.Result]) has every model call but the summary at
//     the iteration limit carry an [OutputFormat], the type's JSON Schema
//     as the provider's structured output (a record as it is, another type
//     wrapped as the "result" member of an object). Its final answer is
//     read as JSON (a Markdown code fence around it is allowed) and
//     validated; a mismatch is told to the model, which answers again, at
//     most [WithOutputRetries] times, before the run ends with
//     [StatusInvalidOutput] and an [*OutputError]. [Response.Output] holds
//     the valid answer's value.
//   - [Builtins] is the library the gramc command starts from (sayHello,
//     sayGoodbye, currentTime); [ExecTool] binds a tool to an external
//     program.
//   - [CheckBinding] applies the binding rule to one tool, [SchemaCompatible]
//     to two schemas, and [SchemaDiff] tells where two schemas validate
//     differently; [ToolSchema] reads a tool's schema with its key order
//     and local references inlined.
//   - Tool results: a tool may return a [*ToolResult], which keeps text,
//     structured and image forms; the model gets the one the declaration
//     asks for. Package github.com/gramlang/gram/runtime/mcp binds the tools
//     of MCP servers to a [Library] and serves agents as MCP tools.
//   - Package github.com/gramlang/gram/runtime/fakeopenai is an in-process
//     OpenAI-compatible server for tests, benchmarks and recording demos.
//     Package github.com/gramlang/gram/runtime/fakeanthropic is an
//     in-process fake of Anthropic's Messages API for tests, and
//     github.com/gramlang/gram/runtime/fakegemini one of the Gemini API's
//     generateContent.
//
// # Errors
//
// Every error [Run] returns is one of [*ValidationError] (empty input, a
// bad conversation), [*ConfigError] (missing API key, a key the server
// rejects with 401 or 403, unknown provider, no base URL), [*PrepareError]
// (injected parameters without a valid value),
// [*OutputError] (a final answer that does not match the result type),
// [*LLMError] (network, HTTP status, rate limit after retries, timeout) or
// [*ToolError] (a tool missing from the library or whose schema refuses
// arguments its specification accepts), or the context's error. Each has a short message
// for end users ([UserError]) and wraps its technical cause. Failures of
// single tool calls (bad JSON, invalid arguments, unknown tool, a tool
// error or panic, a result that does not match the declared return type)
// are not errors of the run: they are fed back to the model,
// which may correct itself.
//
// # Logging and secrets
//
// The loop logs with log/slog: model calls, tool calls and durations at
// INFO, limits (maximum iterations, repeated calls, truncated results,
// retries) at WARN, failures at ERROR; tool arguments and results only at
// DEBUG. API keys never appear in logs, errors, traces or recordings.
package runtime
