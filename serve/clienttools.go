// Client tools on /v1/chat/completions: the function tools of a request's
// "tools" are offered to the agent's model beside the agent's own tools
// (see runtime.WithClientTools). When the model calls one, the run stops
// there: the reply's calls of the agent's own tools run first, and the
// answer is an assistant message with the client's calls only, with the
// finish reason "tool_calls". The server keeps nothing: the agent's own
// calls of that reply stay inside the run, so the message the client sends
// back holds only calls it answers, and its next request, the
// conversation with that message and a tool message per call, is a valid
// continuation that the agent answers from the tool results.

package serve

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// clientTools are the tools a request defines, which the client runs.
type clientTools []runtime.ToolDefinition

// has reports whether name is one of the tools.
func (ct clientTools) has(name string) bool {
	return slices.ContainsFunc(ct, func(d runtime.ToolDefinition) bool { return d.Name == name })
}

// toolName is what OpenAI accepts as a function's name.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// parseClientTools reads a request's "tools": a list of function tools,
// {"type": "function", "function": {"name", "description", "parameters"}},
// the parameters a JSON Schema object ({"type": "object", "properties":
// {}} when left out).
func parseClientTools(raw json.RawMessage) (clientTools, *apiError) {
	if !present(raw) {
		return nil, nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, invalid("tools", "invalid_type", "\"tools\" must be a list of function tools such as {\"type\": \"function\", \"function\": {\"name\": \"getWeather\", \"parameters\": {\"type\": \"object\"}}}, not %s.", kindOf(raw))
	}
	var out clientTools
	for i, item := range items {
		param := fmt.Sprintf("tools[%d]", i)
		var t struct {
			Type     string          `json:"type"`
			Function json.RawMessage `json:"function"`
		}
		if json.Unmarshal(item, &t) != nil || t.Type != "function" {
			return nil, invalid(param+".type", "unsupported_tool", "%s must be a function tool (\"type\": \"function\"): the agent's model is offered functions only.", param)
		}
		var fn struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		if json.Unmarshal(t.Function, &fn) != nil || !toolName.MatchString(fn.Name) {
			return nil, invalid(param+".function.name", "invalid_tool", "%s.function must be an object whose \"name\" has 1 to 64 letters, digits, _ or -.", param)
		}
		if out.has(fn.Name) {
			return nil, invalid(param+".function.name", "invalid_tool", "%s is named %q, as an earlier tool is: each tool needs a name of its own.", param, fn.Name)
		}
		params, aerr := toolParameters(fn.Parameters, param+".function.parameters")
		if aerr != nil {
			return nil, aerr
		}
		out = append(out, runtime.ToolDefinition{Name: fn.Name, Description: fn.Description, Parameters: params})
	}
	return out, nil
}

// toolParameters returns a tool's parameters schema as the model is sent
// it: the object given, its members in the order of their names.
func toolParameters(raw json.RawMessage, param string) (schema.Object, *apiError) {
	if !present(raw) {
		return schema.Object{{Key: "type", Value: "object"}, {Key: "properties", Value: map[string]any{}}}, nil
	}
	v, err := jsonvalue.Decode(raw)
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, invalid(param, "invalid_tool", "%s must be a JSON Schema object such as {\"type\": \"object\", \"properties\": {...}}, not %s.", param, kindOf(raw))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	o := make(schema.Object, 0, len(keys))
	for _, k := range keys {
		o = append(o, schema.Member{Key: k, Value: m[k]})
	}
	return o, nil
}

// checkClientTools refuses a client tool named as one of the agent's
// tools or handoffs: the model would not tell them apart.
func checkClientTools(a *served, tools clientTools) *apiError {
	own := map[string]string{}
	for _, t := range a.agent.Tools {
		own[t.Name] = "a tool"
	}
	for _, h := range a.agent.Handoffs {
		own[schema.HandoffTool(h).Name] = "the handoff tool"
	}
	for i, t := range tools {
		if what, ok := own[t.Name]; ok {
			return invalid(fmt.Sprintf("tools[%d].function.name", i), "tool_name_taken", "tools[%d] is named %q, which is %s of the agent %s: a request's tools need names the agent's do not have. Rename it.", i, t.Name, what, a.agent.Name)
		}
	}
	return nil
}

// clientToolCalls reads the tool_calls of an assistant message param,
// which must call tools of the request.
func clientToolCalls(raw json.RawMessage, param string, tools clientTools) ([]runtime.ToolCall, *apiError) {
	var calls []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	if json.Unmarshal(raw, &calls) != nil {
		return nil, invalid(param, "invalid_message", "%s must be a list of function calls ({\"id\", \"type\": \"function\", \"function\": {\"name\", \"arguments\"}}).", param)
	}
	out := make([]runtime.ToolCall, 0, len(calls))
	for j, c := range calls {
		at := fmt.Sprintf("%s[%d]", param, j)
		switch {
		case c.ID == "":
			return nil, invalid(at+".id", "invalid_message", "%s has no \"id\": send the call as the answer gave it.", at)
		case !tools.has(c.Function.Name):
			return nil, invalid(at+".function.name", "unsupported_parameter", "%s calls %q, which is not among the request's tools: the agent makes its own tool calls inside each run, and a conversation holds only calls of the tools the request defines. Send that tool in \"tools\", or send the assistant's answer as text.", at, c.Function.Name)
		}
		out = append(out, runtime.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	return out, nil
}

// toolResult reads the tool message param: its tool_call_id and its text,
// sanitised by z as the user's.
func toolResult(m map[string]json.RawMessage, param string, z *runtime.Sanitizer) (runtime.Message, *apiError) {
	var id string
	if json.Unmarshal(m["tool_call_id"], &id) != nil || id == "" {
		return runtime.Message{}, invalid(param+".tool_call_id", "invalid_message", "%s is a tool message without \"tool_call_id\": it must name the call it answers.", param)
	}
	content, ok := m["content"]
	if !ok {
		return runtime.Message{}, invalid(param+".content", "invalid_message", "%s.content is missing: it must be the tool's result, a string or a list of text parts.", param)
	}
	text, aerr := messageText(content, param+".content")
	if aerr != nil {
		return runtime.Message{}, aerr
	}
	return runtime.Message{Role: runtime.RoleTool, ToolCallID: id, Content: sanitize(z, param+".content", "tool", text, content)}, nil
}

// checkToolAnswers checks that the tool messages of conv (whose messages
// are params of the request) answer, each once, the calls of the
// assistant message before them, and that every call is answered before
// the next user or assistant message; it names each tool message's tool.
func checkToolAnswers(conv runtime.Conversation, params []string) *apiError {
	pending := map[string]string{} // call id -> tool, of the last assistant message
	var order []string
	at := ""
	unanswered := func() *apiError {
		for _, id := range order {
			if _, ok := pending[id]; ok {
				return invalid(at, "invalid_history", "%s calls %s (id %q), and no tool message answers it: add {\"role\": \"tool\", \"tool_call_id\": %q, \"content\": \"...\"} right after it.", at, pending[id], id, id)
			}
		}
		return nil
	}
	for i := range conv {
		m := &conv[i]
		if m.Role == runtime.RoleTool {
			name, ok := pending[m.ToolCallID]
			if !ok {
				return invalid(params[i]+".tool_call_id", "invalid_history", "%s answers the call %q, which the assistant message before it did not make, or which is answered already.", params[i], m.ToolCallID)
			}
			m.Name = name
			delete(pending, m.ToolCallID)
			continue
		}
		if aerr := unanswered(); aerr != nil {
			return aerr
		}
		clear(pending)
		order = order[:0]
		for _, c := range m.ToolCalls {
			pending[c.ID] = c.Name
			order = append(order, c.ID)
		}
		at = params[i]
	}
	return unanswered()
}

// completionToolCall is a function call of an answer's message.
type completionToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// wireCalls returns the client's calls of a run that stopped at them, as
// an answer's tool_calls (indexed, for a stream's delta).
func wireCalls(resp *runtime.Response, indexed bool) []completionToolCall {
	out := make([]completionToolCall, len(resp.ClientCalls))
	for i, c := range resp.ClientCalls {
		out[i] = completionToolCall{ID: c.ID, Type: "function"}
		out[i].Function.Name, out[i].Function.Arguments = c.Name, c.Arguments
		if indexed {
			out[i].Index = &i
		}
	}
	return out
}

// toolMessageRefusal is why a tool message (code unsupported_role) or a
// message's tool calls (unsupported_parameter) are refused in a request
// without tools; param names a field of a message (messages[1].role).
func toolMessageRefusal(param, code, what string) *apiError {
	return invalid(param, code, "%s %s: the agent makes its own tool calls inside each run, so a conversation holds only user and assistant text, unless the request's \"tools\" defines the tools whose calls it holds. Send the assistant's answers as text, or those tools in \"tools\".", param[:strings.LastIndex(param, "]")+1], what)
}

// moreCalls reports whether m, an assistant message with tool calls and
// no text, adds calls to prev, the assistant message right before it (as
// the Responses API's message and function_call items of one reply do):
// they are one message, prev's text and all the calls.
func moreCalls(prev, m runtime.Message) bool {
	return m.Role == runtime.RoleAssistant && m.Content == "" && len(m.ToolCalls) > 0 && prev.Role == runtime.RoleAssistant
}
