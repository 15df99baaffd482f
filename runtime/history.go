// Reading a conversation history from JSON: a list of messages, the
// response printed by `gramc run --json=final`, the events printed by
// `gramc run --json`, or a recording.

package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// historyMessage is a message in the form of a [Conversation] or in the
// OpenAI wire form (tool_calls, tool_call_id, content parts).
type historyMessage struct {
	Role       Role            `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []ToolCall      `json:"toolCalls"`
	WireCalls  []wireToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"toolCallId"`
	WireCallID string          `json:"tool_call_id"`
	Name       string          `json:"name"`
	Images     []Image         `json:"images"`
}

// wireToolCall is a tool call in the OpenAI wire form.
type wireToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// ParseConversation reads a conversation history from JSON: an array of
// messages (as in [Response.Conversation], or in the OpenAI wire form), a
// [Response] (its "conversation"), [Event] lines (the conversation of the
// last run_finished), or a [replay.Recording] (the messages of its last request
// and the answer to it, streamed or not). A leading system message equal to
// instruction (the agent's, which [Run] adds itself), or the one of a
// recorded request (the instruction of the agent that was recorded), is
// dropped; any other is an error. The
// result is checked with [Conversation.Validate]; an empty history is an
// error.
func ParseConversation(data []byte, instruction string) (Conversation, error) {
	data = bytes.TrimSpace(data)
	raw, events, err := eventLines(data)
	recorded := false // the messages are a recorded request's, the instruction first
	switch {
	case events:
		if err != nil {
			return nil, err
		}
	case len(data) > 0 && data[0] == '[':
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, fmt.Errorf("not a list of messages: %w", err)
		}
	case len(data) > 0 && data[0] == '{':
		var doc struct {
			Conversation *[]historyMessage `json:"conversation"`
			Interactions []struct {
				Request struct {
					Body struct {
						Messages []historyMessage `json:"messages"`
					} `json:"body"`
				} `json:"request"`
				Response *struct {
					Body struct {
						Choices []struct {
							Message historyMessage `json:"message"`
						} `json:"choices"`
					} `json:"body"`
					BodyText string `json:"bodyText"`
				} `json:"response"`
			} `json:"interactions"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("not a response or a recording: %w", err)
		}
		switch {
		case doc.Conversation != nil:
			raw = *doc.Conversation
		case len(doc.Interactions) > 0:
			recorded = true
			last := doc.Interactions[len(doc.Interactions)-1]
			raw = last.Request.Body.Messages
			if r := last.Response; r != nil && len(r.Body.Choices) > 0 {
				raw = append(raw, r.Body.Choices[0].Message)
			} else if r != nil && r.BodyText != "" {
				if m, ok := streamedAnswer(r.BodyText); ok {
					raw = append(raw, m)
				}
			}
		default:
			return nil, errors.New(`neither a response (no "conversation") nor a recording (no "interactions")`)
		}
	default:
		return nil, errors.New("not JSON: want a list of messages, a response or a recording")
	}
	conv := make(Conversation, 0, len(raw))
	for i, m := range raw {
		msg, err := m.message()
		if err != nil {
			return nil, &ValidationError{Field: fmt.Sprintf("conversation[%d]", i), Message: err.Error()}
		}
		if i == 0 && msg.Role == RoleSystem && (recorded || msg.Content == instruction) {
			continue
		}
		conv = append(conv, msg)
	}
	if len(conv) == 0 {
		return nil, &ValidationError{Field: "conversation", Message: "the history has no messages"}
	}
	if err := conv.Validate(); err != nil {
		return nil, err
	}
	return conv, nil
}

// message converts m to a [Message].
func (m historyMessage) message() (Message, error) {
	msg := Message{Role: m.Role, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, Name: m.Name, Images: m.Images}
	for _, c := range m.WireCalls {
		msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	if msg.ToolCallID == "" {
		msg.ToolCallID = m.WireCallID
	}
	content := bytes.TrimSpace(m.Content)
	switch {
	case len(content) == 0 || string(content) == "null":
	case content[0] == '"':
		if err := json.Unmarshal(content, &msg.Content); err != nil {
			return msg, err
		}
	case content[0] == '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(content, &parts); err != nil {
			return msg, fmt.Errorf("content: %w", err)
		}
		for _, p := range parts {
			if p.Type != "text" {
				return msg, fmt.Errorf("content part of type %q: only text parts can be read from a history", p.Type)
			}
			msg.Content += p.Text
		}
	default:
		return msg, errors.New("content must be a string or a list of text parts")
	}
	return msg, nil
}
