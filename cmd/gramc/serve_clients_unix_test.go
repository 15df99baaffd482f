//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/serve"
)

// TestServeOpenAIResponsesClient: the official OpenAI JavaScript library's
// responses.create gets the agent's answer as its output_text, without
// and with streaming (its responses.stream helper reading the events), and
// its chat completion with a system message is answered, the system
// message sent after the agent's instruction.
func TestServeOpenAIResponsesClient(t *testing.T) {
	dir := serveNode(t)
	model := fakeopenai.New(t, repeatStep(greeter, 100)...)
	const key = "sk-gram-serve-client-key-31337"
	keys := `{"keys":[{"sha256":"` + serve.HashKey(key) + `","identity":"ui"}]}`
	p := startHTTPServe(t, []string{"GRAM_KEYS=" + keys}, helloFile(t, ""), "--base-url", model.URL, "--keys-env", "GRAM_KEYS")
	cmd := exec.Command("node", filepath.Join(dir, "responses-client.mjs"), p.url+"/v1", "hello", "Hi, I'm Bob")
	cmd.Env = append(os.Environ(), "GRAM_KEY="+key)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the client failed: %v\n%s\n%s", err, stderr.String(), p.stderr.String())
	}
	var got struct {
		Plain struct {
			OutputText  string `json:"output_text"`
			Status      string
			Object      string
			TotalTokens int `json:"total_tokens"`
		}
		Streamed struct {
			Text          string
			Events        []string
			CompletedText string `json:"completed_text"`
		}
		Helper struct {
			OutputText string `json:"output_text"`
			Status     string
		}
		System  struct{ Content string }
		Refused struct {
			Status            int
			Code, Param, Name string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := "The agent says: Hello, Bob! Nice to meet you."
	if got.Plain.OutputText != want || got.Plain.Status != "completed" || got.Plain.Object != "response" || got.Plain.TotalTokens != 60 {
		t.Errorf("plain: %+v", got.Plain)
	}
	if got.Streamed.Text != want || got.Streamed.CompletedText != want || len(got.Streamed.Events) < 9 ||
		got.Streamed.Events[0] != "response.created" || got.Streamed.Events[len(got.Streamed.Events)-1] != "response.completed" {
		t.Errorf("streamed: %+v", got.Streamed)
	}
	if got.Helper.OutputText != want || got.Helper.Status != "completed" {
		t.Errorf("helper: %+v", got.Helper)
	}
	if got.System.Content != want {
		t.Errorf("system: %+v", got.System)
	}
	if got.Refused.Status != 400 || got.Refused.Code != "unsupported_parameter" || got.Refused.Param != "previous_response_id" || got.Refused.Name != "BadRequestError" {
		t.Errorf("refused: %+v", got.Refused)
	}
	reqs := model.Requests()
	if len(reqs) != 8 {
		t.Fatalf("%d model requests, want 2 per answer", len(reqs))
	}
	for i, want := range map[int]string{0: "system,system,user", 2: "system,user", 6: "system,system,user"} {
		var roles []string
		for _, m := range reqs[i].Body.Messages {
			roles = append(roles, m.Role)
		}
		if strings.Join(roles, ",") != want {
			t.Errorf("model request %d: roles %v, want %s", i, roles, want)
		}
	}
	if m := reqs[0].Body.Messages; len(m) > 1 && (m[0].Text() != "Greet people with sayHello." || m[1].Text() != "Be kind.") {
		t.Errorf("the instructions are not after the agent's: %q, %q", m[0].Text(), m[1].Text())
	}
	if m := reqs[6].Body.Messages; len(m) > 1 && m[1].Text() != "Answer in one sentence." {
		t.Errorf("the system message is not after the agent's instruction: %q", m[1].Text())
	}
	p.signal(t, syscall.SIGTERM)
	if code := p.wait(t); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestServeFrameworkClients: LangChain's ChatOpenAI (with useResponsesApi
// and on chat completions) and the Vercel AI SDK's openai provider (its
// default model on the Responses API, and openai.chat) get the agent's
// answer, with a system message (LangChain's SystemMessage, the SDK's
// system prompt) sent after the agent's instruction.
func TestServeFrameworkClients(t *testing.T) {
	dir := serveNode(t)
	for _, c := range []struct {
		script string
		keys   []string
	}{
		{"langchain-client.mjs", []string{"responses", "streamed", "chat"}},
		{"ai-sdk-client.mjs", []string{"generated", "streamed", "chat"}},
	} {
		t.Run(c.script, func(t *testing.T) {
			model := fakeopenai.New(t, repeatStep(greeter, 100)...)
			p := startHTTPServe(t, nil, helloFile(t, ""), "--base-url", model.URL)
			cmd := exec.Command("node", filepath.Join(dir, c.script), p.url+"/v1", "hello", "Hi, I'm Bob")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("the client failed: %v\n%s\n%s", err, stderr.String(), p.stderr.String())
			}
			var got map[string]string
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			for _, k := range c.keys {
				if want := "The agent says: Hello, Bob! Nice to meet you."; got[k] != want {
					t.Errorf("%s: %q, want %q", k, got[k], want)
				}
			}
			reqs := model.Requests()
			if len(reqs) != 2*len(c.keys) {
				t.Fatalf("%d model requests, want 2 per answer", len(reqs))
			}
			for i := 0; i < len(reqs); i += 2 {
				m := reqs[i].Body.Messages
				if len(m) < 3 || m[0].Text() != "Greet people with sayHello." || m[1].Role != "system" || m[1].Text() != "Answer in one sentence." {
					t.Errorf("model request %d: the system message is not after the agent's instruction: %+v", i, m)
				}
			}
			p.signal(t, syscall.SIGTERM)
			if code := p.wait(t); code != 0 {
				t.Errorf("exit %d", code)
			}
			// Two answers on the Responses API, one on chat completions.
			log := p.stderr.String()
			if n, m := strings.Count(log, "route=/v1/responses status=200"), strings.Count(log, "route=/v1/chat/completions status=200"); n != 2 || m != 1 {
				t.Errorf("%d responses and %d chat completions, want 2 and 1:\n%s", n, m, log)
			}
		})
	}
}

// weatherModel is a model that calls the agent's sayHello and the client's
// getWeather in one reply, then answers with the tool result the client
// sent back.
func weatherModel(req *fakeopenai.Request) fakeopenai.Response {
	msgs := req.Body.Messages
	if last := msgs[len(msgs)-1]; last.Role == "tool" {
		return fakeopenai.Text("The agent says: " + last.Text())(req)
	}
	return fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Bob"}`},
		fakeopenai.Call{Name: "getWeather", Arguments: `{"city":"Paris"}`})(req)
}

// TestServeClientTools: the official OpenAI JavaScript library passes a
// tool of its own, gets the agent's call of it (finish_reason tool_calls,
// plain and streamed), sends the result back and gets the agent's answer;
// its runTools helper does the same by itself, and so does LangChain's
// ChatOpenAI with bindTools; on the Responses API, the library's
// responses.create and responses.stream get the function_call item and
// send a function_call_output back, and LangChain's bindTools does the
// same with useResponsesApi. The agent's own call of the same reply runs
// in the server.
func TestServeClientTools(t *testing.T) {
	dir := serveNode(t)
	model := fakeopenai.New(t, repeatStep(weatherModel, 100)...)
	p := startHTTPServe(t, nil, helloFile(t, ""), "--base-url", model.URL)
	cmd := exec.Command("node", filepath.Join(dir, "client-tools-client.mjs"), p.url+"/v1", "hello", "Hi, I'm Bob. Weather in Paris?")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the client failed: %v\n%s\n%s", err, stderr.String(), p.stderr.String())
	}
	var got struct {
		Plain struct {
			Finish, Name, Arguments, Answer, AnswerFinish string
			Calls                                         int
		}
		Streamed           struct{ Finish, Name, Arguments, Answer string }
		Runner             struct{ Answer string }
		Langchain          lcExchange
		LangchainResponses lcExchange `json:"langchainResponses"`
		Responses          struct {
			Plain, Streamed struct{ Status, Name, Arguments, Answer string }
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := "The agent says: sunny in Paris"
	if g := got.Plain; g.Finish != "tool_calls" || g.Calls != 1 || g.Name != "getWeather" || g.Arguments != `{"city":"Paris"}` || g.Answer != want || g.AnswerFinish != "stop" {
		t.Errorf("plain: %+v", g)
	}
	if g := got.Streamed; g.Finish != "tool_calls" || g.Name != "getWeather" || g.Arguments != `{"city":"Paris"}` || g.Answer != want {
		t.Errorf("streamed: %+v", g)
	}
	if got.Runner.Answer != want {
		t.Errorf("runTools: %+v", got.Runner)
	}
	for _, g := range []lcExchange{got.Langchain, got.LangchainResponses} {
		if g.Name != "getWeather" || g.Args["city"] != "Paris" || g.Answer != want {
			t.Errorf("langchain: %+v", g)
		}
	}
	for _, g := range []struct{ Status, Name, Arguments, Answer string }{got.Responses.Plain, got.Responses.Streamed} {
		if g.Status != "completed" || g.Name != "getWeather" || g.Arguments != `{"city":"Paris"}` || g.Answer != want {
			t.Errorf("responses: %+v", g)
		}
	}
	reqs := model.Requests()
	if len(reqs) != 14 {
		t.Fatalf("%d model requests, want 2 per exchange", len(reqs))
	}
	for i := 0; i < len(reqs); i += 2 {
		var offered []string
		for _, tool := range reqs[i].Body.Tools {
			offered = append(offered, tool.Function.Name)
		}
		if strings.Join(offered, ",") != "sayHello,getWeather" {
			t.Errorf("model request %d offered %v", i, offered)
		}
		if roles := rolesOf(reqs[i+1].Body.Messages); roles != "system,user,assistant,tool" {
			t.Errorf("model request %d: roles %s, want the client's call and its result after the user's message", i+1, roles)
		}
	}
	p.signal(t, syscall.SIGTERM)
	if code := p.wait(t); code != 0 {
		t.Errorf("exit %d", code)
	}
	log := p.stderr.String()
	if n, m := strings.Count(log, "route=/v1/chat/completions status=200"), strings.Count(log, "route=/v1/responses status=200"); n != 8 || m != 6 {
		t.Errorf("%d chat completions and %d responses answered, want 8 and 6:\n%s", n, m, log)
	}
}

// lcExchange is what the client prints of a LangChain exchange: the call
// of the tool and the answer to its result.
type lcExchange struct {
	Name   string
	Args   map[string]string
	Answer string
}

// rolesOf returns the roles of messages, joined by commas.
func rolesOf(msgs []fakeopenai.Message) string {
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role)
	}
	return strings.Join(roles, ",")
}
