package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gramlang/gram/pricing"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// loopingModel is a scripted model that asks for tool every time, each
// reply using tokens tokens (half prompt, half completion).
func loopingModel(tool string, tokens int64) *runtime.Scripted {
	m := runtime.NewScripted()
	m.Respond = func(*runtime.Request) (*runtime.Reply, error) {
		r := runtime.CallReply(runtime.Call(tool, `{"q":"again"}`))
		r.Usage = runtime.Usage{PromptTokens: tokens / 2, CompletionTokens: tokens / 2, TotalTokens: tokens}
		return r, nil
	}
	return m
}

// countingLib is a library of the tool name that counts its calls.
func countingLib(name string, n *atomic.Int64) *runtime.Library {
	return runtime.NewLibrary(runtime.Tool{Name: name, Invoke: func(context.Context, map[string]any) (any, error) {
		n.Add(1)
		return "more", nil
	}})
}

// budgetAgent is an agent of the tool lookup with budget b.
func budgetAgent(b schema.Budget) *schema.Agent {
	a := treeAgent("looper", "Look things up.", libTool("lookup"))
	a.Settings.MaxIterations = 20
	a.Settings.Budget = b
	return a
}

// TestBudgetToolCalls: with maxToolCalls 1 and a model that keeps calling
// its tool, the tool runs once, the second call is refused, and the run
// ends budget_exceeded with what it spent.
func TestBudgetToolCalls(t *testing.T) {
	var ran atomic.Int64
	m := loopingModel("lookup", 10)
	resp, err := runtime.Run(context.Background(), budgetAgent(schema.Budget{MaxToolCalls: 1}), countingLib("lookup", &ran), nil, "go",
		runtime.WithModel(m), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if ran.Load() != 1 {
		t.Errorf("the tool ran %d times; want 1", ran.Load())
	}
	if resp.Status != runtime.StatusBudgetExceeded || resp.Spent == nil || resp.Spent.Exceeded != runtime.BudgetToolCalls {
		t.Fatalf("status %s, spent %+v; want budget_exceeded at maxToolCalls", resp.Status, resp.Spent)
	}
	if resp.Spent.ToolCalls != 1 || resp.Spent.Usage.TotalTokens != 20 || len(m.Requests()) != 2 {
		t.Errorf("spent %+v after %d model calls; want 1 tool call, 20 tokens, 2 model calls", resp.Spent, len(m.Requests()))
	}
	if n := len(resp.ToolsUsed); n != 2 || !strings.Contains(resp.ToolsUsed[1].Error, "maxToolCalls") {
		t.Errorf("tool uses %+v; want the second refused naming maxToolCalls", resp.ToolsUsed)
	}
	if len(resp.Warnings) == 0 || !strings.Contains(resp.Warnings[len(resp.Warnings)-1], "maxToolCalls: 1") {
		t.Errorf("warnings %q; want the budget named", resp.Warnings)
	}
}

// TestBudgetTokens: no model call is made once the tokens spent reach
// maxTotalTokens.
func TestBudgetTokens(t *testing.T) {
	var ran atomic.Int64
	m := loopingModel("lookup", 100)
	resp, err := runtime.Run(context.Background(), budgetAgent(schema.Budget{MaxTotalTokens: 250}), countingLib("lookup", &ran), nil, "go",
		runtime.WithModel(m), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Requests()) != 3 || resp.Status != runtime.StatusBudgetExceeded || resp.Spent.Exceeded != runtime.BudgetTotalTokens {
		t.Fatalf("%d model calls, status %s, spent %+v; want 3 calls (300 tokens), then budget_exceeded at maxTotalTokens",
			len(m.Requests()), resp.Status, resp.Spent)
	}
}

// TestBudgetCost: the cost of the calls is reckoned at the price of the
// agent's model, and no model call is made once it reaches maxCostUSD; a
// model without a price fails the run before its first call.
func TestBudgetCost(t *testing.T) {
	a := budgetAgent(schema.Budget{MaxCostUSD: 0.25})
	a.Model = schema.Model{Provider: schema.OpenAI, ID: "priced"}
	// 100 tokens at $1000 per million tokens: $0.10 a call.
	prices := pricing.Default().With(map[string]pricing.Price{"OpenAI/priced": {Input: 1000, Output: 1000}})
	var ran atomic.Int64
	m := loopingModel("lookup", 100)
	resp, err := runtime.Run(context.Background(), a, countingLib("lookup", &ran), nil, "go",
		runtime.WithModel(m), runtime.WithPrices(prices), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Requests()) != 3 || resp.Status != runtime.StatusBudgetExceeded || resp.Spent.Exceeded != runtime.BudgetCostUSD {
		t.Fatalf("%d model calls, status %s, spent %+v; want 3 calls ($0.30), then budget_exceeded at maxCostUSD",
			len(m.Requests()), resp.Status, resp.Spent)
	}
	if !resp.Spent.CostKnown || resp.Spent.CostUSD < 0.299 || resp.Spent.CostUSD > 0.301 {
		t.Errorf("spent %+v; want a known cost of $0.30", resp.Spent)
	}

	m = loopingModel("lookup", 100)
	resp, err = runtime.Run(context.Background(), a, countingLib("lookup", &ran), nil, "go", runtime.WithModel(m), runtime.WithLogger(discard()))
	var ce *runtime.ConfigError
	if !errors.As(err, &ce) || len(m.Requests()) != 0 || !strings.Contains(err.Error(), "OpenAI/priced") {
		t.Fatalf("a cost budget without a price: %v (status %s, %d model calls); want a ConfigError naming the model before any call",
			err, resp.Status, len(m.Requests()))
	}
}

// TestBudgetSubAgent: the calls of a sub-agent count against the top
// agent's budget, and the whole tree stops there.
func TestBudgetSubAgent(t *testing.T) {
	worker := treeAgent("worker", "Work.", libTool("lookup"))
	worker.Settings.MaxIterations = 20
	boss := treeAgent("boss", "Delegate.", worker.AsTool)
	boss.Settings.Budget = schema.Budget{MaxToolCalls: 3}
	m := runtime.NewScripted()
	m.Respond = func(req *runtime.Request) (*runtime.Reply, error) {
		if system(req) == "Delegate." {
			return runtime.CallReply(runtime.Call("worker", `{"message":"work"}`)), nil
		}
		return runtime.CallReply(runtime.Call("lookup", `{"q":"x"}`)), nil
	}
	var ran atomic.Int64
	resp, err := runtime.Run(context.Background(), boss, countingLib("lookup", &ran), nil, "go",
		runtime.WithModel(m), runtime.WithProgram(program(boss, worker)), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	// The worker call is one, then two lookups, then the third lookup is
	// refused.
	if ran.Load() != 2 {
		t.Errorf("the sub-agent's tool ran %d times; want 2", ran.Load())
	}
	if resp.Status != runtime.StatusBudgetExceeded || resp.Spent.ToolCalls != 3 || resp.Spent.Exceeded != runtime.BudgetToolCalls {
		t.Fatalf("status %s, spent %+v; want budget_exceeded after 3 tool calls", resp.Status, resp.Spent)
	}
	if sub := resp.ToolsUsed[0].Run; sub == nil || sub.Status != runtime.StatusBudgetExceeded {
		t.Errorf("the sub-agent's run: %+v; want budget_exceeded", sub)
	}
}

// TestBudgetGiven: WithBudget replaces the agent's budget, and an agent
// without one spends freely, with no Spent in its response.
func TestBudgetGiven(t *testing.T) {
	var ran atomic.Int64
	a := budgetAgent(schema.Budget{MaxToolCalls: 100})
	resp, _ := runtime.Run(context.Background(), a, countingLib("lookup", &ran), nil, "go",
		runtime.WithModel(loopingModel("lookup", 1)), runtime.WithBudget(schema.Budget{MaxToolCalls: 2}), runtime.WithLogger(discard()))
	if ran.Load() != 2 || resp.Status != runtime.StatusBudgetExceeded {
		t.Fatalf("ran %d, status %s; want 2 and budget_exceeded", ran.Load(), resp.Status)
	}
	m := runtime.NewScripted(runtime.CallReply(runtime.Call("lookup", `{"q":"x"}`)), runtime.TextReply("done"))
	resp, _ = runtime.Run(context.Background(), budgetAgent(schema.Budget{}), countingLib("lookup", &ran), nil, "go",
		runtime.WithModel(m), runtime.WithLogger(discard()))
	if resp.Status != runtime.StatusCompleted || resp.Spent != nil {
		t.Fatalf("status %s, spent %+v; want completed and no Spent", resp.Status, resp.Spent)
	}
}

// TestBudgetCostOfFallback: the calls a fallback model answers cost its
// price, not the agent's model's.
func TestBudgetCostOfFallback(t *testing.T) {
	a := budgetAgent(schema.Budget{MaxCostUSD: 100})
	a.Model = schema.Model{Provider: schema.OpenAI, ID: "main"}
	prices := pricing.Default().With(map[string]pricing.Price{
		"OpenAI/main":   {Input: 1, Output: 1},
		"OpenAI/backup": {Input: 1000, Output: 1000},
	})
	down := runtime.NewScripted()
	down.PushError(&runtime.LLMError{Kind: runtime.LLMNetwork, Attempts: 1, Err: errors.New("down")})
	backup := runtime.NewScripted(&runtime.Reply{Message: runtime.Message{Role: runtime.RoleAssistant, Content: "hi"},
		Usage: runtime.Usage{PromptTokens: 500, CompletionTokens: 500, TotalTokens: 1000}})
	var ran atomic.Int64
	resp, err := runtime.Run(context.Background(), a, countingLib("lookup", &ran), nil, "go", runtime.WithModel(down), runtime.WithPrices(prices),
		runtime.WithFallbacks(runtime.Fallback{Model: schema.Model{Provider: schema.OpenAI, ID: "backup"}, Client: backup}), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Spent == nil || resp.Spent.CostUSD < 0.999 || resp.Spent.CostUSD > 1.001 {
		t.Fatalf("spent %+v; want $1, the backup's price of 1000 tokens", resp.Spent)
	}
}

// TestBudgetOfSubAgent: a sub-agent's own budget bounds its run, which
// stops budget_exceeded; the calling run, with no budget of its own, goes
// on and answers.
func TestBudgetOfSubAgent(t *testing.T) {
	worker := treeAgent("worker", "Work.", libTool("lookup"))
	worker.Settings.MaxIterations = 20
	worker.Settings.Budget = schema.Budget{MaxToolCalls: 2}
	boss := treeAgent("boss", "Delegate.", worker.AsTool)
	bossCalls := 0
	m := runtime.NewScripted()
	m.Respond = func(req *runtime.Request) (*runtime.Reply, error) {
		if system(req) == "Delegate." {
			if bossCalls++; bossCalls > 1 {
				return runtime.TextReply("The worker ran out of budget."), nil
			}
			return runtime.CallReply(runtime.Call("worker", `{"message":"work"}`)), nil
		}
		return runtime.CallReply(runtime.Call("lookup", `{"q":"x"}`)), nil
	}
	var ran atomic.Int64
	resp, err := runtime.Run(context.Background(), boss, countingLib("lookup", &ran), nil, "go",
		runtime.WithModel(m), runtime.WithProgram(program(boss, worker)), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if ran.Load() != 2 || resp.Status != runtime.StatusCompleted || resp.Spent != nil {
		t.Fatalf("ran %d, status %s, spent %+v; want 2 lookups, then the boss completing with no budget of its own", ran.Load(), resp.Status, resp.Spent)
	}
	sub := resp.ToolsUsed[0].Run
	if sub == nil || sub.Status != runtime.StatusBudgetExceeded || sub.Spent == nil || sub.Spent.ToolCalls != 2 || sub.Spent.Budget.MaxToolCalls != 2 {
		t.Fatalf("the worker's run: %+v; want budget_exceeded after its 2 tool calls", sub)
	}
}

// TestUsageOfEveryCall: WithUsage is given every model call of the tree,
// the sub-agent's with its own model, when the turn has no budget.
func TestUsageOfEveryCall(t *testing.T) {
	worker := treeAgent("worker", "Work.")
	boss := treeAgent("boss", "Delegate.", worker.AsTool)
	used := runtime.Usage{PromptTokens: 3, CompletionTokens: 2}
	m := runtime.NewScripted()
	m.Respond = func(req *runtime.Request) (*runtime.Reply, error) {
		r := runtime.TextReply("done")
		if system(req) == "Delegate." && len(req.Messages) == 2 {
			r = runtime.CallReply(runtime.Call("worker", `{"message":"work"}`))
		}
		r.Usage = used
		return r, nil
	}
	var mu sync.Mutex
	var calls []string
	resp, err := runtime.Run(context.Background(), boss, nil, nil, "go", runtime.WithModel(m),
		runtime.WithProgram(program(boss, worker)), runtime.WithLogger(discard()),
		runtime.WithUsage(func(model schema.Model, u runtime.Usage) {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, fmt.Sprintf("%s %+v", model, u))
		}))
	if err != nil || resp.Status != runtime.StatusCompleted {
		t.Fatalf("status %s, error %v; want completed", resp.Status, err)
	}
	want := []string{"OpenAI/model-boss", "OpenAI/model-worker", "OpenAI/model-boss"}
	for i := range want {
		want[i] += fmt.Sprintf(" %+v", used)
	}
	if !slices.Equal(calls, want) {
		t.Errorf("calls counted %q; want %q", calls, want)
	}
}

// TestBudgetToolCallsInOrder: the calls of one reply that run at once are
// admitted against the budget of tool calls in the order the model gave
// them: the first runs and the second is refused, every time, and the
// refusal names the sub-agent whose budget it is.
func TestBudgetToolCallsInOrder(t *testing.T) {
	worker := treeAgent("worker", "Work.", libTool("lookup"))
	worker.Settings.Budget = schema.Budget{MaxToolCalls: 1}
	boss := treeAgent("boss", "Delegate.", worker.AsTool)
	for range 20 {
		m := runtime.NewScripted()
		m.Respond = func(req *runtime.Request) (*runtime.Reply, error) {
			switch {
			case system(req) == "Work.":
				return runtime.CallReply(runtime.Call("lookup", `{"q":"1"}`), runtime.Call("lookup", `{"q":"2"}`)), nil
			case len(req.Messages) == 2:
				return runtime.CallReply(runtime.Call("worker", `{"message":"work"}`)), nil
			}
			return runtime.TextReply("done"), nil
		}
		var mu sync.Mutex
		var ran []string
		lib := runtime.NewLibrary(runtime.Tool{Name: "lookup", Invoke: func(_ context.Context, args map[string]any) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			ran = append(ran, fmt.Sprint(args["q"]))
			return "found", nil
		}})
		resp, err := runtime.Run(context.Background(), boss, lib, nil, "go",
			runtime.WithModel(m), runtime.WithProgram(program(boss, worker)), runtime.WithLogger(discard()))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ran, []string{"1"}) {
			t.Fatalf("the tool ran with q %q; want only the first call, q 1", ran)
		}
		sub := resp.ToolsUsed[0].Run
		if sub == nil || len(sub.ToolsUsed) != 2 {
			t.Fatalf("the worker's run: %+v; want its two tool uses", sub)
		}
		want := "not run: agent worker's budget maxToolCalls: 1 is spent"
		if got := sub.ToolsUsed[1].Error; !strings.Contains(got, want) {
			t.Fatalf("the refused call's error %q; want it to say %q", got, want)
		}
	}
}

// TestBudgetCostOfReachedAgents: a cost budget needs the price of every
// model the run may come to, a sub-agent's called as a tool (through
// another) or an agent handed to, and without one the run fails before
// its first model call, naming the agent and its model.
func TestBudgetCostOfReachedAgents(t *testing.T) {
	prices := pricing.Default().With(map[string]pricing.Price{
		"OpenAI/model-top": {Input: 1, Output: 1}, "OpenAI/model-mid": {Input: 1, Output: 1}})
	helper := treeAgent("helper", "Help.")
	mid := treeAgent("mid", "Pass on.", helper.AsTool)
	top := treeAgent("top", "Delegate.", mid.AsTool)
	top.Settings.Budget = schema.Budget{MaxCostUSD: 0.01}
	hand := treeAgent("hand", "Hand over.")
	hand.Handoffs = []schema.Handoff{{Agent: "helper"}}
	hand.Settings.Budget = schema.Budget{MaxCostUSD: 0.01}
	prices = prices.With(map[string]pricing.Price{"OpenAI/model-hand": {Input: 1, Output: 1}})
	for _, a := range []*schema.Agent{top, hand} {
		m := runtime.NewScripted(runtime.TextReply("done"))
		resp, err := runtime.Run(context.Background(), a, nil, nil, "go", runtime.WithModel(m), runtime.WithPrices(prices),
			runtime.WithProgram(program(top, mid, helper, hand)), runtime.WithLogger(discard()))
		var ce *runtime.ConfigError
		if !errors.As(err, &ce) || len(m.Requests()) != 0 || !strings.Contains(err.Error(), "model OpenAI/model-helper of agent helper") {
			t.Errorf("agent %s: %v (status %s, %d model calls); want a ConfigError naming agent helper and its model before any call",
				a.Name, err, resp.Status, len(m.Requests()))
		}
	}
}

// TestBudgetCostOfUnpricedFallback: a cost budget needs the price of the
// agent's fallbacks too: without one the run fails before its first model
// call, naming the fallback's model, rather than spending on it uncounted.
func TestBudgetCostOfUnpricedFallback(t *testing.T) {
	a := budgetAgent(schema.Budget{MaxCostUSD: 0.01})
	a.Model = schema.Model{Provider: schema.OpenAI, ID: "main"}
	prices := pricing.Default().With(map[string]pricing.Price{"OpenAI/main": {Input: 1, Output: 1}})
	down := runtime.NewScripted()
	down.PushError(&runtime.LLMError{Kind: runtime.LLMNetwork, Attempts: 1, Err: errors.New("down")})
	backup := runtime.NewScripted(runtime.TextReply("hi"))
	var ran atomic.Int64
	_, err := runtime.Run(context.Background(), a, countingLib("lookup", &ran), nil, "go", runtime.WithModel(down), runtime.WithPrices(prices),
		runtime.WithFallbacks(runtime.Fallback{Model: schema.Model{Provider: schema.OpenAI, ID: "house"}, Client: backup}), runtime.WithLogger(discard()))
	var ce *runtime.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "model OpenAI/house of agent looper") || len(down.Requests())+len(backup.Requests()) != 0 {
		t.Fatalf("%v (%d, %d model calls); want a ConfigError naming the fallback's model before any call", err, len(down.Requests()), len(backup.Requests()))
	}
}
