package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// responseWeatherTool is the client tool of the Responses tests, flat.
var responseWeatherTool = map[string]any{"type": "function", "name": "getWeather", "description": "The weather in a city",
	"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}

// callItem is a function_call output item as a test reads it.
type callItem struct {
	Type, ID, Status, Name, Arguments string
	CallID                            string `json:"call_id"`
}

// TestResponsesClientTools: on /v1/responses, the model's call of a
// request's tool is a function_call output item, and the next request's
// input, with that item and a function_call_output, is answered.
func TestResponsesClientTools(t *testing.T) {
	h := newHarness(t, clientToolSteps())
	input := []any{map[string]any{"role": "user", "content": "Hi, I'm Bob. Weather in Paris?"}}
	resp, b := h.post("/v1/responses", map[string]any{"model": "hello", "input": input, "tools": []any{responseWeatherTool}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var r struct {
		Status string
		Output []callItem
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Status != "completed" || len(r.Output) != 1 {
		t.Fatalf("response %s", b)
	}
	fc := r.Output[0]
	if fc.Type != "function_call" || fc.CallID != "call_weather" || fc.Name != "getWeather" || fc.Arguments != `{"city":"Paris"}` || !strings.HasPrefix(fc.ID, "fc_") {
		t.Errorf("item %+v", fc)
	}
	if tools := h.model.Requests()[0].Body.Tools; len(tools) != 2 || tools[1].Function.Name != "getWeather" {
		t.Errorf("the model was offered %+v", tools)
	}
	var raw struct{ Output []json.RawMessage }
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	// The output item goes back as it came, as the libraries send it.
	input = append(input, raw.Output[0], map[string]any{"type": "function_call_output", "call_id": fc.CallID, "output": "sunny, 21°C"})
	resp, b = h.post("/v1/responses", map[string]any{"model": "hello", "input": input, "tools": []any{responseWeatherTool}, "stream": true})
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"text":"In Paris: sunny, 21°C"`) || !strings.Contains(string(b), "event: response.completed") {
		t.Errorf("status %d: %s", resp.StatusCode, b)
	}
	if roles := rolesOf(h.model.Requests()[1].Body.Messages); roles != "system,user,assistant,tool" {
		t.Errorf("the model saw %s", roles)
	}
}

// TestResponsesClientToolsStream: streamed, the function_call item comes
// after the message, with its arguments' events, and in the completed
// response.
func TestResponsesClientToolsStream(t *testing.T) {
	h := newHarness(t, clientToolSteps())
	resp, b := h.post("/v1/responses", map[string]any{"model": "hello", "input": "Hi, I'm Bob. Weather in Paris?", "tools": []any{responseWeatherTool}, "stream": true})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var types []string
	var last map[string]any
	for _, line := range strings.Split(string(b), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			var e map[string]any
			if err := json.Unmarshal([]byte(d), &e); err != nil {
				t.Fatal(err)
			}
			types = append(types, e["type"].(string))
			last = e
		}
	}
	tail := strings.Join(types[len(types)-5:], ",")
	if tail != "response.output_item.added,response.function_call_arguments.delta,response.function_call_arguments.done,response.output_item.done,response.completed" {
		t.Errorf("events %v", types)
	}
	out, _ := json.Marshal(last["response"].(map[string]any)["output"])
	var items []callItem
	if err := json.Unmarshal(out, &items); err != nil || len(items) != 2 || items[1].Type != "function_call" || items[1].CallID != "call_weather" || items[1].Arguments != `{"city":"Paris"}` {
		t.Errorf("output %s", out)
	}
}
