// The result of a run: the answer, the tool uses, the status and the
// updated conversation.

package runtime

import (
	"encoding/json"
	"time"
)

// Status says how a run ended.
type Status string

// The statuses of a [Response].
const (
	// StatusCompleted: the model answered with text.
	StatusCompleted Status = "completed"
	// StatusMaxIterations: the agent's maxIterations model calls were made
	// without a final answer. Everything produced so far is kept; by default
	// the content is a summary of the progress asked of the model in one
	// last call without tools, and [MaxIterationsMessage] when there is no
	// summary (turned off, empty or failed).
	StatusMaxIterations Status = "max_iterations_reached"
	// StatusError: the run failed; [Response.Error] has the user-facing
	// message and [Run] returns the error.
	StatusError Status = "error"
	// StatusTruncated: the model's answer was cut short at its token limit
	// (finish_reason "length"); the content is what it wrote.
	StatusTruncated Status = "truncated"
	// StatusFiltered: the provider's content filter withheld or cut the
	// answer (finish_reason "content_filter").
	StatusFiltered Status = "content_filtered"
	// StatusNoMessage: the server answered without a message ("message":
	// null).
	StatusNoMessage Status = "no_message"
	// StatusEmpty: the model's answer had neither text nor tool calls. The
	// empty answer stays in the conversation, which goes on.
	StatusEmpty Status = "empty_answer"
	// StatusInvalidOutput: the agent has a result type and its final
	// answer did not match it, even after the model was told what was
	// wrong (see [WithOutputRetries]); the content is the last answer,
	// [Response.Error] says what was wrong and [Run] returns an
	// [*OutputError].
	StatusInvalidOutput Status = "invalid_output"
)

// Response is the result of one user turn.
type Response struct {
	// Content is the model's final answer.
	Content string `json:"content"`
	// Output is the JSON value of the final answer of an agent with a
	// result type, validated against it: the answer itself for a record
	// result, the "result" member of the answer otherwise (see
	// [OutputFormat]). Nil for an agent whose answer is free text, and
	// when the turn ended otherwise than [StatusCompleted].
	Output json.RawMessage `json:"output,omitempty"`
	// Status says how the run ended.
	Status Status `json:"status"`
	// Iterations is the number of model calls with tools made in this turn
	// (the summary call at the iteration limit is not counted).
	Iterations int `json:"iterations"`
	// ToolsUsed lists every tool call of the turn, in the order the model
	// made them.
	ToolsUsed []ToolUse `json:"toolsUsed"`
	// FinishReason is the finish_reason of the turn's last model response
	// ("stop", "tool_calls", "length", "content_filter", ...); "" when no
	// model call answered.
	FinishReason string `json:"finishReason,omitempty"`
	// Usage is the token usage of the turn's model calls.
	Usage Usage `json:"usage"`
	// Conversation is the conversation given to [Run] followed by this
	// turn's messages: the user input, the assistant messages with their
	// tool calls, the tool results and the final answer.
	Conversation Conversation `json:"conversation"`
	// Warnings are things the caller should know: a tool description that
	// differs from its specification, the iteration limit reached, ...
	Warnings []string `json:"warnings,omitempty"`
	// Error is the user-facing message of the error when Status is
	// [StatusError].
	Error string `json:"error,omitempty"`
	// RunID identifies the run ("run_" and 16 hex digits).
	RunID string `json:"runId"`
	// Agent is the agent that answered: the agent handed to, after a
	// handoff.
	Agent string `json:"agent"`
	// ClientCalls are the calls of client tools (see [WithClientTools])
	// the run stopped at, with [StatusToolCalls], in the order the model
	// made them; the caller answers each with a tool message. The
	// conversation ends with the assistant message that made them (and
	// the results of the reply's other calls).
	ClientCalls []ToolCall `json:"clientCalls,omitempty"`
	// Pending are the calls of approval tools the run stopped at, with
	// [StatusAwaitingApproval], in the order the model made them (those of
	// sub-agents name their agent and run); see [WithDecisions].
	Pending []PendingCall `json:"pending,omitempty"`
	// Spent is what the whole tree of runs of the turn spent (tool calls,
	// tokens, cost) against its budget, when it has one (see [WithBudget]);
	// with [StatusBudgetExceeded], it names the budget reached.
	Spent *Spent `json:"spent,omitempty"`
}

// ToolUse is one tool call and its outcome.
type ToolUse struct {
	// Iteration is the model call (from 1) that asked for the tool.
	Iteration int `json:"iteration"`
	// CallID is the model's id of the call.
	CallID string `json:"callId"`
	// Name is the tool called.
	Name string `json:"name"`
	// RawArguments is what the model sent, unchanged.
	RawArguments string `json:"rawArguments"`
	// Arguments are the arguments the tool received: defaults applied and
	// injected parameters set. Nil when the call failed before validation.
	Arguments map[string]any `json:"arguments,omitempty"`
	// Result is the tool's result, in full even when the copy sent to the
	// model was truncated.
	Result any `json:"result,omitempty"`
	// Images are the images of the result (see [ToolResult]), shown to the
	// model after the step's tool messages.
	Images []Image `json:"images,omitempty"`
	// Error says why the call failed; the same text was sent to the model.
	Error string `json:"error,omitempty"`
	// Truncated is set when the result sent to the model was cut to the
	// result limit.
	Truncated bool `json:"truncated,omitempty"`
	// Duration is how long the call took, validation included.
	Duration time.Duration `json:"-"`
	// Run is the nested run's response, for a tool that runs an agent.
	Run *Response `json:"run,omitempty"`
	// Denied is set for a call of an approval tool that a person denied;
	// Error then says so, with the reason.
	Denied bool `json:"denied,omitempty"`
}

// MarshalJSON writes the tool use with its duration in milliseconds as
// "durationMs".
func (u ToolUse) MarshalJSON() ([]byte, error) {
	type plain ToolUse
	return json.Marshal(struct {
		plain
		DurationMs float64 `json:"durationMs"`
	}{plain(u), float64(u.Duration.Microseconds()) / 1000})
}

// Failed reports whether the call failed.
func (u ToolUse) Failed() bool { return u.Error != "" }
