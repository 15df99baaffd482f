package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// stringType is the String type.
func stringType() *schema.Type { return &schema.Type{Kind: schema.StringType, Name: "String"} }

// treeAgent returns an agent of the given tools, with the default
// signature (message::String)==>(::String) as its AsTool.
func treeAgent(name, instruction string, tools ...*schema.Tool) *schema.Agent {
	a := &schema.Agent{Name: name, Instruction: instruction, Settings: schema.DefaultSettings(), Tools: tools,
		Model: schema.Model{Provider: schema.OpenAI, ID: "model-" + name}}
	a.AsTool = &schema.Tool{Name: name, Description: "Ask agent " + name, Agent: name, Returns: stringType(),
		Params: []*schema.Param{{Name: "message", Type: stringType()}}}
	return a
}

// libTool returns the declaration of a library tool taking a String q.
func libTool(name string) *schema.Tool {
	return &schema.Tool{Name: name, Description: "Tool " + name, Returns: stringType(),
		Params: []*schema.Param{{Name: "q", Type: stringType()}}}
}

// program returns a program of the agents.
func program(agents ...*schema.Agent) *schema.Program {
	return schema.NewProgram(nil, agents, nil, nil)
}

// system returns the system message of a request, "" if none.
func system(req *runtime.Request) string {
	if len(req.Messages) > 0 && req.Messages[0].Role == runtime.RoleSystem {
		return req.Messages[0].Content
	}
	return ""
}

// toolNames returns the names of the tools a request offers.
func toolNames(req *runtime.Request) []string {
	var names []string
	for _, d := range req.Tools {
		names = append(names, d.Name)
	}
	return names
}

// TestSubAgentResult: a sub-agent called as a tool runs with its own
// instruction on a conversation whose one user message is the call's
// message, and its answer is the tool result the parent's next request
// holds.
func TestSubAgentResult(t *testing.T) {
	billing := treeAgent("billing", "You answer billing questions.")
	support := treeAgent("support", "You help customers.", billing.AsTool)
	m := runtime.NewScripted(
		runtime.CallReply(runtime.Call("billing", `{"message":"Is invoice 7 paid?"}`)),
		runtime.TextReply("Invoice 7 is paid."),
		runtime.TextReply("Yes, it is paid."),
	)
	resp, err := runtime.Run(context.Background(), support, nil, nil, "invoice 7?",
		runtime.WithModel(m), runtime.WithProgram(program(support, billing)), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	child := reqs[1]
	if system(child) != billing.Instruction || len(child.Messages) != 2 || child.Messages[1].Content != "Is invoice 7 paid?" || child.Model != "model-billing" {
		t.Errorf("the sub-agent's request: model %q, messages %+v", child.Model, child.Messages)
	}
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	if last.Role != runtime.RoleTool || last.Content != "Invoice 7 is paid." {
		t.Errorf("the parent's next request ends with %+v; want the sub-agent's answer as the tool result", last)
	}
	use := resp.ToolsUsed[0]
	if use.Run == nil || use.Run.Agent != "billing" || use.Run.Content != "Invoice 7 is paid." || use.Run.RunID == "" || use.Run.RunID == resp.RunID {
		t.Errorf("the tool use's run is %+v", use.Run)
	}
	if resp.Agent != "support" || !strings.HasPrefix(resp.RunID, "run_") || len(resp.RunID) != 20 {
		t.Errorf("response agent %q, run id %q", resp.Agent, resp.RunID)
	}
	b, _ := json.Marshal(resp)
	if !strings.Contains(string(b), `"run":{"content":"Invoice 7 is paid."`) {
		t.Errorf("the JSON of the response has no nested run: %s", b)
	}
}

// TestSubAgentArguments: a sub-agent with a signature other than
// (message::String) gets the call's arguments as JSON text.
func TestSubAgentArguments(t *testing.T) {
	quote := treeAgent("quote", "You quote prices.")
	quote.Signature = true
	quote.AsTool.Params = []*schema.Param{{Name: "item", Type: stringType()}, {Name: "count", Type: &schema.Type{Kind: schema.IntegerType}}}
	shop := treeAgent("shop", "You sell.", quote.AsTool)
	m := runtime.NewScripted(
		runtime.CallReply(runtime.Call("quote", `{"item":"pen","count":3}`)),
		runtime.TextReply("3 pens cost 6."),
		runtime.TextReply("6."),
	)
	if _, err := runtime.Run(context.Background(), shop, nil, nil, "price?",
		runtime.WithModel(m), runtime.WithProgram(program(shop, quote)), runtime.WithLogger(discard())); err != nil {
		t.Fatal(err)
	}
	if got := m.Requests()[1].Messages[1].Content; got != `{"count":3,"item":"pen"}` {
		t.Errorf("the sub-agent's message is %q; want the arguments as JSON", got)
	}
}

// TestSubAgentFailure: a sub-run that fails, or ends without completing,
// is a tool error naming the agent and the status, and the parent goes on.
func TestSubAgentFailure(t *testing.T) {
	billing := treeAgent("billing", "You answer billing questions.", libTool("lookup"))
	billing.Settings.MaxIterations = 1
	support := treeAgent("support", "You help customers.", billing.AsTool)
	lib := runtime.NewLibrary(runtime.Tool{Name: "lookup", Invoke: func(context.Context, map[string]any) (any, error) { return "nothing", nil }})
	m := runtime.NewScripted(runtime.CallReply(runtime.Call("billing", `{"message":"a"}`)))
	m.PushError(&runtime.LLMError{Kind: runtime.LLMStatus, StatusCode: 400, Attempts: 1, Err: errors.New("bad request")})
	m.Push(
		runtime.CallReply(runtime.Call("billing", `{"message":"b"}`)),
		runtime.CallReply(runtime.Call("lookup", `{"q":"x"}`)), // its only iteration
		runtime.TextReply("I could not find it."),              // its summary
		runtime.TextReply("Sorry, billing is down."),
	)
	resp, err := runtime.Run(context.Background(), support, lib, nil, "help",
		runtime.WithModel(m), runtime.WithProgram(program(support, billing)), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != runtime.StatusCompleted || resp.Content != "Sorry, billing is down." || len(resp.ToolsUsed) != 2 {
		t.Fatalf("status %s, content %q, %d tool uses", resp.Status, resp.Content, len(resp.ToolsUsed))
	}
	failed, stopped := resp.ToolsUsed[0], resp.ToolsUsed[1]
	if !strings.Contains(failed.Error, "agent billing failed (status error)") || failed.Run == nil || failed.Run.Status != runtime.StatusError {
		t.Errorf("failed sub-run: error %q, run %+v", failed.Error, failed.Run)
	}
	if !strings.Contains(stopped.Error, "agent billing did not finish (status max_iterations_reached)") || stopped.Run == nil || len(stopped.Run.ToolsUsed) != 1 {
		t.Errorf("stopped sub-run: error %q, run %+v", stopped.Error, stopped.Run)
	}
	reqs := m.Requests()
	if c := reqs[2].Messages[len(reqs[2].Messages)-1].Content; !strings.Contains(c, "agent billing failed") {
		t.Errorf("the model was not told of the failure: %q", c)
	}
}

// TestCompositionNeedsProgram: an agent that calls an agent, or hands off,
// cannot run without the program holding it; nothing is sent.
func TestCompositionNeedsProgram(t *testing.T) {
	billing := treeAgent("billing", "b")
	caller := treeAgent("support", "s", billing.AsTool)
	handing := treeAgent("triage", "t")
	handing.Handoffs = []schema.Handoff{{Agent: "billing"}}
	for _, tc := range []struct {
		agent *schema.Agent
		opts  []runtime.Option
		want  string
	}{
		{caller, nil, "agent support uses agent billing, but the run has no program"},
		{handing, nil, "agent triage uses agent billing, but the run has no program"},
		{caller, []runtime.Option{runtime.WithProgram(program(caller))}, "agent support uses agent billing, which is not in the run's program"},
	} {
		m := runtime.NewScripted(runtime.TextReply("hi"))
		_, err := runtime.Run(context.Background(), tc.agent, nil, nil, "hi",
			append(tc.opts, runtime.WithModel(m), runtime.WithLogger(discard()))...)
		var ce *runtime.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v; want a ConfigError %q", tc.agent.Name, err, tc.want)
		}
		if n := len(m.Requests()); n != 0 {
			t.Errorf("%s: %d model calls before the error", tc.agent.Name, n)
		}
	}
}

// loopAgent is an agent that lists itself, and a model that always calls
// it.
func loopAgent(maxIter int) (*schema.Agent, *runtime.Scripted) {
	a := treeAgent("loop", "Call yourself.")
	a.Tools = []*schema.Tool{a.AsTool}
	a.Settings.MaxIterations = maxIter
	var mu sync.Mutex
	n := 0
	m := &runtime.Scripted{Respond: func(*runtime.Request) (*runtime.Reply, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		return runtime.CallReply(runtime.Call("loop", fmt.Sprintf(`{"message":"again %d"}`, n))), nil
	}}
	return a, m
}

// TestMaxDepth: an agent that calls itself nests as deep as allowed; the
// deeper call gives the model a tool error and its run is refused with
// StatusMaxDepth.
func TestMaxDepth(t *testing.T) {
	a, m := loopAgent(2)
	resp, err := runtime.Run(context.Background(), a, nil, nil, "go", runtime.WithModel(m), runtime.WithProgram(program(a)),
		runtime.WithMaxDepth(2), runtime.WithSummary(false), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != runtime.StatusMaxIterations {
		t.Errorf("status %s", resp.Status)
	}
	run := resp
	for depth := 1; depth <= 2; depth++ {
		run = run.ToolsUsed[0].Run
		if run == nil || run.Status != runtime.StatusMaxIterations || run.Agent != "loop" {
			t.Fatalf("the run at depth %d is %+v", depth, run)
		}
	}
	refused := run.ToolsUsed[0]
	if refused.Run == nil || refused.Run.Status != runtime.StatusMaxDepth || len(refused.Run.ToolsUsed) != 0 {
		t.Errorf("the call at depth 3 ran: %+v", refused.Run)
	}
	if !strings.Contains(refused.Error, "agent loop was not run (status max_depth_reached)") {
		t.Errorf("the refused call's error is %q", refused.Error)
	}
	// 2 calls at depth 2, 2+2·2 at depth 1, 2+2·6 at the top.
	if n := len(m.Requests()); n != 14 {
		t.Errorf("%d model calls, want 14", n)
	}
}

// TestUnboundedRecursion: with the default limits, an agent calling itself
// forever stops cleanly within the tree's model calls.
func TestUnboundedRecursion(t *testing.T) {
	a, m := loopAgent(10)
	resp, err := runtime.Run(context.Background(), a, nil, nil, "go", runtime.WithModel(m), runtime.WithProgram(program(a)), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != runtime.StatusMaxModelCalls || resp.Content != runtime.MaxModelCallsMessage {
		t.Errorf("status %s, content %q", resp.Status, resp.Content)
	}
	if n := len(m.Requests()); n != runtime.DefaultMaxModelCalls {
		t.Errorf("%d model calls, want %d", n, runtime.DefaultMaxModelCalls)
	}
}

// TestMaxModelCalls: the limit counts the model calls of the whole tree;
// the run that reaches it stops with StatusMaxModelCalls, and so does its
// parent.
func TestMaxModelCalls(t *testing.T) {
	worker := treeAgent("worker", "Work.", libTool("step"))
	boss := treeAgent("boss", "Delegate.", worker.AsTool)
	lib := runtime.NewLibrary(runtime.Tool{Name: "step", Invoke: func(_ context.Context, args map[string]any) (any, error) { return "ok", nil }})
	n := 0
	m := &runtime.Scripted{Respond: func(req *runtime.Request) (*runtime.Reply, error) {
		n++
		return runtime.CallReply(runtime.Call("step", fmt.Sprintf(`{"q":"%d"}`, n))), nil
	}}
	m.Push(runtime.CallReply(runtime.Call("worker", `{"message":"do it"}`)))
	resp, err := runtime.Run(context.Background(), boss, lib, nil, "go", runtime.WithModel(m), runtime.WithProgram(program(boss, worker)),
		runtime.WithMaxModelCalls(4), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Requests()); got != 4 {
		t.Errorf("%d model calls, want 4", got)
	}
	if resp.Status != runtime.StatusMaxModelCalls || resp.Iterations != 1 {
		t.Errorf("top run: status %s after %d iterations", resp.Status, resp.Iterations)
	}
	sub := resp.ToolsUsed[0]
	if sub.Run == nil || sub.Run.Status != runtime.StatusMaxModelCalls || sub.Run.Iterations != 3 ||
		!strings.Contains(sub.Error, "status max_model_calls_reached") {
		t.Errorf("sub-run: error %q, run %+v", sub.Error, sub.Run)
	}
}

// TestSubRunTraceLabel: a trace of the model requests names the agents of
// the nested run that made each request.
func TestSubRunTraceLabel(t *testing.T) {
	srv := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "billing", Arguments: `{"message":"paid?"}`}),
		fakeopenai.Text("Paid."),
		fakeopenai.Text("It is paid."),
	)
	srv.APIKey = testKey
	var trace bytes.Buffer
	m, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{Provider: schema.OpenAI, BaseURL: srv.URL, APIKey: testKey,
		HTTPClient: &http.Client{Transport: replay.NewTracer(&trace, nil, testKey)}})
	if err != nil {
		t.Fatal(err)
	}
	billing := treeAgent("billing", "You answer billing questions.")
	support := treeAgent("support", "You help customers.", billing.AsTool)
	if _, err := runtime.Run(context.Background(), support, nil, nil, "paid?", runtime.WithModel(m),
		runtime.WithProgram(program(support, billing)), runtime.WithLogger(discard())); err != nil {
		t.Fatal(err)
	}
	var heads []string
	for _, line := range strings.Split(trace.String(), "\n") {
		if strings.HasPrefix(line, "--> request") || strings.HasPrefix(line, "<-- response") {
			heads = append(heads, line[:strings.Index(line, ":")])
		}
	}
	want := []string{"--> request 1", "<-- response 1", "--> request 2 (support > billing)", "<-- response 2 (support > billing)", "--> request 3", "<-- response 3"}
	if !slices.Equal(heads, want) {
		t.Errorf("trace heads %q; want %q", heads, want)
	}
}

// TestPrepareTree: Prepare checks the agents an agent uses, with their
// tools and injected parameters, and refuses a run that cannot find them.
func TestPrepareTree(t *testing.T) {
	lookup := libTool("lookup")
	lookup.Params = append(lookup.Params, &schema.Param{Name: "userId", Type: stringType(), Injected: true})
	billing := treeAgent("billing", "b", lookup, libTool("refund"))
	support := treeAgent("support", "s", billing.AsTool)
	lib := runtime.NewLibrary(runtime.Tool{Name: "lookup", Invoke: func(context.Context, map[string]any) (any, error) { return "", nil }})
	injected := runtime.WithInjected(map[string]any{"userId": "u-1"})
	_, err := runtime.Prepare(support, lib, injected, runtime.WithProgram(program(support, billing)))
	var pe *runtime.PrepareError
	if !errors.As(err, &pe) || len(pe.Problems) != 1 || !errors.Is(err, runtime.ToolMissing) || !strings.Contains(err.Error(), `"refund"`) {
		t.Errorf("Prepare: %v; want only the sub-agent's missing tool refund", err)
	}
	_, err = runtime.Prepare(support, lib, injected)
	var ce *runtime.ConfigError
	if !errors.As(err, &ce) {
		t.Errorf("Prepare without the program: %v; want a ConfigError", err)
	}
}

// TestParallelSubAgents: the sub-agents called in one reply run
// concurrently, each its own run, and their answers come back in call
// order.
func TestParallelSubAgents(t *testing.T) {
	billing := treeAgent("billing", "You answer billing questions.")
	shipping := treeAgent("shipping", "You answer shipping questions.")
	support := treeAgent("support", "You help customers.", billing.AsTool, shipping.AsTool)
	m := &runtime.Scripted{Respond: func(req *runtime.Request) (*runtime.Reply, error) {
		switch system(req) {
		case billing.Instruction:
			return runtime.TextReply("Paid."), nil
		case shipping.Instruction:
			return runtime.TextReply("Shipped."), nil
		}
		return runtime.TextReply("All good."), nil
	}}
	m.Push(runtime.CallReply(runtime.Call("billing", `{"message":"paid?"}`), runtime.Call("shipping", `{"message":"shipped?"}`)))
	var log eventLog
	resp, err := runtime.Run(context.Background(), support, nil, nil, "status?", runtime.WithModel(m),
		runtime.WithProgram(program(support, billing, shipping)), runtime.WithEvents(log.add), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	u := resp.ToolsUsed
	if len(u) != 2 || u[0].Result != "Paid." || u[1].Result != "Shipped." || u[0].Run.RunID == u[1].Run.RunID {
		t.Fatalf("tool uses %+v", u)
	}
	started := 0
	for _, e := range log.events {
		if e.Type == runtime.EventRunStarted && e.ParentRunID == resp.RunID {
			started++
		}
	}
	if started != 2 {
		t.Errorf("%d nested runs started; want 2", started)
	}
}

// TestModelSource: with a model source, the top run keeps the model it was
// given, and a sub-agent and an agent handed to take theirs from the
// source, each asked for its own agent.
func TestModelSource(t *testing.T) {
	billing := treeAgent("billing", "You answer billing questions.")
	support := treeAgent("support", "You help customers.", billing.AsTool)
	support.Handoffs = []schema.Handoff{{Agent: "billing"}}
	top := runtime.NewScripted(
		runtime.CallReply(runtime.Call("billing", `{"message":"Is invoice 7 paid?"}`)),
		runtime.CallReply(runtime.Call("transfer_to_billing", `{}`)),
	)
	other := runtime.NewScripted(runtime.TextReply("Invoice 7 is paid."), runtime.TextReply("It is paid."))
	var asked []string
	src := func(a *schema.Agent) (runtime.Model, []runtime.Fallback, error) {
		asked = append(asked, a.Name)
		return other, nil, nil
	}
	resp, err := runtime.Run(context.Background(), support, nil, nil, "invoice 7?", runtime.WithModel(top),
		runtime.WithModelSource(src), runtime.WithProgram(program(support, billing)), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if len(top.Requests()) != 2 || len(other.Requests()) != 2 {
		t.Errorf("%d calls to the given model, %d to the source's; want 2 and 2", len(top.Requests()), len(other.Requests()))
	}
	if !slices.Equal(asked, []string{"billing", "billing"}) || resp.Agent != "billing" || resp.Content != "It is paid." {
		t.Errorf("the source was asked for %v; the answer is %q by %s", asked, resp.Content, resp.Agent)
	}
}

// TestGivenRunID: WithRunID names the top run; its sub-agents' runs get
// ids of their own, whose parent is the given one.
func TestGivenRunID(t *testing.T) {
	billing := treeAgent("billing", "You answer billing questions.")
	support := treeAgent("support", "You help customers.", billing.AsTool)
	m := runtime.NewScripted(
		runtime.CallReply(runtime.Call("billing", `{"message":"Is invoice 7 paid?"}`)),
		runtime.TextReply("Invoice 7 is paid."),
		runtime.TextReply("Yes, it is paid."),
	)
	var parents []string
	resp, err := runtime.Run(context.Background(), support, nil, nil, "invoice 7?",
		runtime.WithModel(m), runtime.WithProgram(program(support, billing)), runtime.WithLogger(discard()),
		runtime.WithRunID("run-store-1"), runtime.WithEvents(func(e runtime.Event) {
			if e.ParentRunID != "" {
				parents = append(parents, e.ParentRunID)
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	if resp.RunID != "run-store-1" {
		t.Errorf("the top run's id is %q, want the given run-store-1", resp.RunID)
	}
	if sub := resp.ToolsUsed[0].Run; sub == nil || sub.RunID == "run-store-1" || !strings.HasPrefix(sub.RunID, "run_") {
		t.Errorf("the sub-agent's run is %+v; want an id of its own", sub)
	}
	if len(parents) == 0 || parents[0] != "run-store-1" {
		t.Errorf("the nested run's events name the parents %v; want run-store-1", parents)
	}
}
