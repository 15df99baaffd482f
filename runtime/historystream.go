// Histories from streamed sessions: the events printed by `gramc run
// --json` (one JSON object per line; the last run_finished has the
// response), and recordings whose answers are event streams.

package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
)

// eventLines reads a history from event lines: the conversation of the
// last run_finished event. ok is false when data is not event lines.
func eventLines(data []byte) (raw []historyMessage, ok bool, err error) {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	var head struct {
		Type EventType `json:"type"`
	}
	if json.Unmarshal(bytes.TrimSpace(first), &head) != nil || head.Type == "" {
		return nil, false, nil
	}
	found := false
	// Lines of any length: data is in memory already, bounded by whoever
	// read it.
	for line := range bytes.Lines(data) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var e struct {
			Type        EventType `json:"type"`
			ParentRunID string    `json:"parentRunId"`
			Response    *struct {
				Conversation []historyMessage `json:"conversation"`
			} `json:"response"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, true, errors.New("not event lines: a line is not a JSON object: " + err.Error())
		}
		// A nested run's run_finished is not the conversation's.
		if e.Type == EventRunFinished && e.Response != nil && e.ParentRunID == "" {
			raw, found = e.Response.Conversation, true
		}
	}
	if !found {
		return nil, true, errors.New("the events have no run_finished event with a response")
	}
	return raw, true, nil
}

// streamedAnswer assembles the assistant message of a recorded event
// stream: its text and its tool calls, whose pieces are joined by index.
func streamedAnswer(body string) (historyMessage, bool) {
	msg := historyMessage{Role: RoleAssistant}
	var text bytes.Buffer
	calls := map[int64]*wireToolCall{}
	seen := false
	for _, line := range bytes.Split([]byte(body), []byte("\n")) {
		data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:"))
		if !ok {
			continue
		}
		var chunk struct {
			Choices []struct {
				Index int `json:"index"`
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						Index    int64  `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal(bytes.TrimSpace(data), &chunk) != nil {
			continue // [DONE]
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			seen = true
			text.WriteString(ch.Delta.Content)
			for _, tc := range ch.Delta.ToolCalls {
				c := calls[tc.Index]
				if c == nil {
					c = &wireToolCall{}
					calls[tc.Index] = c
				}
				if tc.ID != "" {
					c.ID = tc.ID
				}
				c.Function.Name += tc.Function.Name
				c.Function.Arguments += tc.Function.Arguments
			}
		}
	}
	if !seen {
		return msg, false
	}
	if text.Len() > 0 || len(calls) == 0 {
		msg.Content, _ = json.Marshal(text.String())
	}
	idx := make([]int64, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
	for _, i := range idx {
		msg.WireCalls = append(msg.WireCalls, *calls[i])
	}
	return msg, true
}
