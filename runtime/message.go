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

// Validate checks a conversation before it is sent, by the history rules
// of the agent service contract and the API's: every message has the role
// user, assistant or tool (the agent's instruction is the system message,
// which [Run] adds: a history has none); a user message has text or
// images; each tool call of an assistant message has an id and a name, and
// is answered by a tool message, with the call's id and (if it names one)
// its tool, before the next user or assistant message. An assistant
// message may be empty: a model's empty answer is kept as one, and sent as
// empty text. The first problem is returned as a [*ValidationError] whose
// Field names the message's index ("conversation[3]").
func (c Conversation) Validate() error {
	type call struct {
		name     string
		msg      int // the index of the assistant message that made it
		answered bool
	}
	calls := map[string]*call{}
	var pending []string // the ids of the last assistant message's calls, in order
	bad := func(i int, format string, a ...any) error {
		return &ValidationError{Field: fmt.Sprintf("conversation[%d]", i), Message: fmt.Sprintf(format, a...)}
	}
	// unanswered reports the first call of the last assistant message that
	// no tool message answered, once next, which is not a tool message,
	// follows it.
	unanswered := func(next string) error {
		for _, id := range pending {
			if cl := calls[id]; !cl.answered {
				return bad(cl.msg, "the tool call %q (%s) is never answered: %s follows it; add a tool message with toolCallId %q right after the call, or remove the call", id, cl.name, next, id)
			}
		}
		pending = nil
		return nil
	}
	for i, m := range c {
		if m.Role != RoleTool {
			next := fmt.Sprintf("conversation[%d] (%s)", i, m.Role)
			if err := unanswered(next); err != nil {
				return err
			}
		}
		switch m.Role {
		case RoleUser:
			if strings.TrimSpace(m.Content) == "" && len(m.Images) == 0 {
				return bad(i, "the user message has no content")
			}
		case RoleSystem:
			return bad(i, "a history has no system message: the agent's instruction is sent as the system message; remove it (roles: user, assistant, tool)")
		case RoleAssistant:
			for j, tc := range m.ToolCalls {
				switch {
				case tc.ID == "":
					return bad(i, "tool call %d has no id", j)
				case tc.Name == "":
					return bad(i, "tool call %d (%s) has no tool name", j, tc.ID)
				case calls[tc.ID] != nil:
					return bad(i, "tool call %d repeats the id %q of an earlier call", j, tc.ID)
				}
				calls[tc.ID] = &call{name: tc.Name, msg: i}
				pending = append(pending, tc.ID)
			}
		case RoleTool:
			cl := calls[m.ToolCallID]
			switch {
			case m.ToolCallID == "":
				return bad(i, "the tool message has no toolCallId")
			case cl == nil:
				return bad(i, "the tool message answers the call %q, which no earlier assistant message made", m.ToolCallID)
			case cl.answered:
				return bad(i, "the call %q is answered twice", m.ToolCallID)
			case m.Name != "" && m.Name != cl.name:
				return bad(i, "the tool message names the tool %q, but the call %q it answers is to %q", m.Name, m.ToolCallID, cl.name)
			}
			cl.answered = true
		case "":
			return bad(i, "the message has no role (want user, assistant or tool)")
		default:
			return bad(i, "unknown role %q (want user, assistant or tool)", m.Role)
		}
	}
	return unanswered("the new user message")
}
