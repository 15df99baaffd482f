// Conversation messages: what the loop sends to a model and keeps between
// turns.

package runtime

import (
	"fmt"
	"strings"
)

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

// Validate checks a conversation before it is sent: every message has a
// role the API allows (user, assistant, tool, system), the content its role
// needs (text or images for user and system messages, text or tool calls
// for assistant messages, with an id and a name for each call), and every
// tool message answers a call of an earlier assistant message. The first
// problem is returned as a [*ValidationError] whose Field names the
// message's index ("conversation[3]").
func (c Conversation) Validate() error {
	calls := map[string]bool{} // call id -> answered
	for i, m := range c {
		bad := func(format string, a ...any) error {
			return &ValidationError{Field: fmt.Sprintf("conversation[%d]", i), Message: fmt.Sprintf(format, a...)}
		}
		switch m.Role {
		case RoleUser:
			if strings.TrimSpace(m.Content) == "" && len(m.Images) == 0 {
				return bad("the user message has no content")
			}
		case RoleSystem:
			if strings.TrimSpace(m.Content) == "" {
				return bad("the system message has no content")
			}
		case RoleAssistant:
			if m.Content == "" && len(m.ToolCalls) == 0 {
				return bad("the assistant message has neither content nor tool calls")
			}
			for j, tc := range m.ToolCalls {
				switch {
				case tc.ID == "":
					return bad("tool call %d has no id", j)
				case tc.Name == "":
					return bad("tool call %d (%s) has no tool name", j, tc.ID)
				case hasKey(calls, tc.ID):
					return bad("tool call %d repeats the id %q of an earlier call", j, tc.ID)
				}
				calls[tc.ID] = false
			}
		case RoleTool:
			answered, ok := calls[m.ToolCallID]
			switch {
			case m.ToolCallID == "":
				return bad("the tool message has no toolCallId")
			case !ok:
				return bad("the tool message answers the call %q, which no earlier assistant message made", m.ToolCallID)
			case answered:
				return bad("the call %q is answered twice", m.ToolCallID)
			}
			calls[m.ToolCallID] = true
		case "":
			return bad("the message has no role (want user, assistant, tool or system)")
		default:
			return bad("unknown role %q (want user, assistant, tool or system)", m.Role)
		}
	}
	return nil
}

// hasKey reports whether m has the key k.
func hasKey(m map[string]bool, k string) bool {
	_, ok := m[k]
	return ok
}
