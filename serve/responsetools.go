// Client tools on /v1/responses, as on /v1/chat/completions (see
// clienttools.go) in the Responses API's forms: the request's tools are
// flat function tools ({"type": "function", "name", "description",
// "parameters"}); the model's calls of them are function_call output
// items; the next request's input holds them with a function_call_output
// item per call. The items are read as the chat messages they stand for.

package serve

import (
	"encoding/json"
	"strings"

	"github.com/gramlang/gram/runtime"
)

// parseResponseTools reads a Responses request's tools into client tools,
// each read as the chat tool it stands for.
func parseResponseTools(raw json.RawMessage) (clientTools, *apiError) {
	if !present(raw) {
		return nil, nil
	}
	var items []map[string]json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, invalid("tools", "invalid_type", "\"tools\" must be a list of function tools such as {\"type\": \"function\", \"name\": \"getWeather\", \"parameters\": {\"type\": \"object\"}}, not %s.", kindOf(raw))
	}
	chat := make([]map[string]any, len(items))
	for i, it := range items {
		fn := map[string]json.RawMessage{}
		for _, k := range []string{"name", "description", "parameters"} {
			if v, ok := it[k]; ok {
				fn[k] = v
			}
		}
		chat[i] = map[string]any{"type": it["type"], "function": fn}
		if it["type"] == nil {
			chat[i]["type"] = nil
		}
	}
	b, _ := json.Marshal(chat)
	tools, aerr := parseClientTools(b)
	return tools, flatToolError(aerr)
}

// flatToolError names the place of an error about a chat tool as the
// Responses API's flat tool has it (tools[0].name, not
// tools[0].function.name).
func flatToolError(aerr *apiError) *apiError {
	if aerr != nil {
		aerr.Param = strings.Replace(aerr.Param, ".function.", ".", 1)
		aerr.Message = strings.ReplaceAll(aerr.Message, ".function", "")
	}
	return aerr
}

// responseCallItem reads a function_call or function_call_output item m
// of a Responses input into the chat message it stands for: an assistant
// message with the call, or the tool message with its output (a string
// or a list of input_text parts).
func responseCallItem(typ string, m map[string]json.RawMessage) json.RawMessage {
	if typ == "function_call" {
		call := map[string]any{"id": m["call_id"], "type": "function",
			"function": map[string]json.RawMessage{"name": m["name"], "arguments": m["arguments"]}}
		b, _ := json.Marshal(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{call}})
		return b
	}
	b, _ := json.Marshal(map[string]any{"role": "tool", "tool_call_id": m["call_id"], "content": textParts(m["output"])})
	return b
}

// textParts returns a content whose input_text and output_text parts are
// read as text parts.
func textParts(c json.RawMessage) json.RawMessage {
	var parts []map[string]json.RawMessage
	if len(c) == 0 || c[0] != '[' || json.Unmarshal(c, &parts) != nil {
		return c
	}
	for _, p := range parts {
		var pt string
		if json.Unmarshal(p["type"], &pt) == nil && (pt == "input_text" || pt == "output_text") {
			p["type"] = json.RawMessage(`"text"`)
		}
	}
	b, _ := json.Marshal(parts)
	return b
}

// functionCall is a function_call output item.
type functionCall struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Status    string `json:"status"`
}

// functionCalls returns the client's calls a run stopped at as
// function_call output items.
func functionCalls(resp *runtime.Response) []functionCall {
	out := make([]functionCall, len(resp.ClientCalls))
	for i, c := range resp.ClientCalls {
		out[i] = functionCall{Type: "function_call", ID: newID("fc_"), CallID: c.ID, Name: c.Name, Arguments: c.Arguments, Status: "completed"}
	}
	return out
}

// closeCalls sends the events of the function_call items of a streamed
// response, after its message, and adds them to its output.
func (f *responseEvents) closeCalls(es *eventStream, resp *runtime.Response) {
	for _, fc := range functionCalls(resp) {
		index := len(f.rs.Output)
		added := fc
		added.Arguments, added.Status = "", "in_progress"
		f.event(es, "response.output_item.added", map[string]any{"output_index": index, "item": added})
		f.event(es, "response.function_call_arguments.delta", map[string]any{"item_id": fc.ID, "output_index": index, "delta": fc.Arguments})
		f.event(es, "response.function_call_arguments.done", map[string]any{"item_id": fc.ID, "output_index": index, "arguments": fc.Arguments})
		f.event(es, "response.output_item.done", map[string]any{"output_index": index, "item": fc})
		f.rs.Output = append(f.rs.Output, fc)
	}
}
