// Conversation messages: what the loop sends to a model and keeps between
// turns.

package runtime

// Role is the author of a [Message].
type Role string

// The roles of a conversation.
const (
	// RoleSystem is the agent's instruction. It is never stored in a
	// [Conversation]: [Run] adds it to every request.
	RoleSystem Role = "system"
	// RoleUser is a user turn.
	RoleUser Role = "user"
	// RoleAssistant is a model reply: text, tool calls, or both.
	RoleAssistant Role = "assistant"
	// RoleTool is the result of one tool call.
	RoleTool Role = "tool"
)

// Message is one message of a conversation.
type Message struct {
	// Role says who wrote the message.
	Role Role `json:"role"`
	// Content is the text: the user's input, the model's answer, or a tool
	// result as sent to the model (possibly truncated).
	Content string `json:"content,omitempty"`
	// ToolCalls are the tool calls of an assistant message, in the order the
	// model made them.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolCallID is the call a tool message answers.
	ToolCallID string `json:"toolCallId,omitempty"`
	// Name is the tool of a tool message.
	Name string `json:"name,omitempty"`
	// Images follow the text of a user message, as image parts. [Run]
	// adds such a message after the tool messages of a step whose tools
	// returned images, as tool messages carry text only.
	Images []Image `json:"images,omitempty"`
}

// ToolCall is a model's request to call a tool.
type ToolCall struct {
	// ID identifies the call; the tool message with the result repeats it.
	ID string `json:"id"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Arguments is the JSON object of arguments exactly as the model sent
	// it, which may be invalid.
	Arguments string `json:"arguments"`
}

// Conversation is the history of a conversation: user, assistant and tool
// messages, oldest first. [Run] returns the conversation extended by the
// turn it ran, ready to be passed to the next call.
type Conversation []Message

// Clone returns a copy of c that shares no slices with it.
func (c Conversation) Clone() Conversation {
	if c == nil {
		return nil
	}
	out := make(Conversation, len(c))
	for i, m := range c {
		if m.ToolCalls != nil {
			m.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
		}
		if m.Images != nil {
			m.Images = append([]Image(nil), m.Images...)
		}
		out[i] = m
	}
	return out
}

// Usage counts tokens.
type Usage struct {
	PromptTokens     int64 `json:"promptTokens"`
	CompletionTokens int64 `json:"completionTokens"`
	TotalTokens      int64 `json:"totalTokens"`
}

// Add adds u2 to u.
func (u *Usage) Add(u2 Usage) {
	u.PromptTokens += u2.PromptTokens
	u.CompletionTokens += u2.CompletionTokens
	u.TotalTokens += u2.TotalTokens
}
