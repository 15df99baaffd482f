// The Model interface: what the loop needs from an LLM client.

package runtime

import (
	"context"
	"time"

	"github.com/gramlang/gram/schema"
)

// Model is an LLM that answers chat requests with text or tool calls.
// Implementations must be safe for concurrent use. [OpenAIModel] talks to
// the OpenAI API and compatible servers; [Scripted] replays a queue of
// replies. Errors should be [*LLMError] or [*ConfigError]; other errors are
// wrapped in an LLMError by [Run].
type Model interface {
	Complete(ctx context.Context, req *Request) (*Reply, error)
}

// Request is one call to a model.
type Request struct {
	// Model is the provider's model id, e.g. "gpt-4o-mini".
	Model string
	// Messages are the system instruction followed by the conversation.
	Messages []Message
	// Tools are the tools the model may call.
	Tools []ToolDefinition
	// ToolChoice is "" (the model decides) or "none" (answer with text).
	ToolChoice string
	// Temperature is passed on when set.
	Temperature *float64
	// MaxTokens limits the reply when non-zero.
	MaxTokens int
	// ParallelToolCalls, when set, tells the model whether it may ask for
	// several tool calls in one reply.
	ParallelToolCalls *bool
	// Timeout limits each attempt of the call when non-zero.
	Timeout time.Duration
	// Output, when set, is the form the final answer must take: JSON
	// matching its schema (see [OutputFormat]). Tools may be offered with
	// it; a reply with tool calls is not held to it.
	Output *OutputFormat
}

// ToolDefinition is a tool as the model sees it.
type ToolDefinition struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments the model supplies
	// (injected parameters left out).
	Parameters schema.Object
	// Spec is the tool's declaration, when there is one: a provider
	// whose schemas differ from Parameters writes them from it (see
	// [schema.TargetTool]).
	Spec *schema.Tool
}

// Reply is a model's answer.
type Reply struct {
	// Message is the assistant message: text, tool calls, or both.
	Message Message
	// Usage is the call's token usage.
	Usage Usage
	// FinishReason is the provider's reason for stopping ("stop",
	// "tool_calls", "length", ...).
	FinishReason string
	// NoMessage is set when the answer had no message at all ("message":
	// null or left out), rather than an empty one.
	NoMessage bool
}
