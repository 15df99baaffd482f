// Injected parameters and the checks of Prepare.

package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

const injectSrc = `
[lookupOrder:Tool {description: "Finds one of the user's orders"} |
  (orderId::Integer)==>(userId::String {injected: true, description: "The signed-in user"})==>(::String)
]
[desk:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Look orders up."} | lookupOrder]
`

// TestInjectedUserID: the host's userId reaches the tool even when the
// model sends another one, and the model never sees the parameter.
func TestInjectedUserID(t *testing.T) {
	h := newHarness(t,
		fakeopenai.Calls(call("lookupOrder", `{"orderId":7,"userId":"mallory"}`), call("lookupOrder", `{"orderId":8}`)),
		fakeopenai.Text("done"),
	)
	var mu sync.Mutex
	var seen []string
	lib := runtime.NewLibrary(toolFunc("lookupOrder", map[string]any{
		"type": "object",
		"properties": map[string]any{
			"orderId": map[string]any{"type": "integer"},
			"userId":  map[string]any{"type": "string"},
		},
		"required":             []string{"orderId", "userId"},
		"additionalProperties": false,
	}, func(_ context.Context, args map[string]any) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, fmt.Sprintf("%v:%v", args["orderId"], args["userId"]))
		return "ok", nil
	}))
	resp := h.mustRun(t, compile(t, injectSrc).Agents()[0], lib, nil, "my orders", runtime.WithInjected(map[string]any{"userId": "alice", "other": 1}))
	mu.Lock()
	got := strings.Join(seen, ",")
	mu.Unlock()
	if got != "7:alice,8:alice" && got != "8:alice,7:alice" {
		t.Errorf("the tool saw %s", got)
	}
	for _, u := range resp.ToolsUsed {
		if u.Error != "" || u.Arguments["userId"] != "alice" {
			t.Errorf("tool use %+v", u)
		}
	}
	params := string(h.srv.Requests()[0].Body.Tools[0].Function.Parameters)
	if strings.Contains(params, "userId") || !strings.Contains(params, "orderId") {
		t.Errorf("the model saw the parameters %s", params)
	}
	if !strings.Contains(h.logs.String(), "injected parameter") {
		t.Error("no warning about the value the model sent for userId")
	}
}

// TestInjectedMissing: without the host's value the run stops before the
// first model call with a PrepareError naming the tool and the parameter,
// and the server gets no request.
func TestInjectedMissing(t *testing.T) {
	h := newHarness(t, fakeopenai.Text("sorry"))
	lib := runtime.NewLibrary(toolFunc("lookupOrder", nil, func(context.Context, map[string]any) (any, error) { return "ok", nil }))
	resp, err := h.run(t, compile(t, injectSrc).Agents()[0], lib, nil, "my orders", runtime.WithInjected(map[string]any{"userID": "alice"}))
	var pe *runtime.PrepareError
	if !errors.As(err, &pe) || len(pe.Problems) != 1 {
		t.Fatalf("error %v, want a PrepareError with one problem", err)
	}
	want := `tool "lookupOrder": injected parameter userId (String): the host gave no value (did you mean "userID"?)`
	if got := pe.Problems[0].Error(); got != want {
		t.Errorf("problem %q, want %q", got, want)
	}
	var ie *runtime.InjectionError
	if !errors.As(err, &ie) || ie.Tool != "lookupOrder" || ie.Param != "userId" || ie.Suggestion != "userID" {
		t.Errorf("InjectionError %+v", ie)
	}
	if resp.Status != runtime.StatusError {
		t.Errorf("status %s", resp.Status)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("the server got %d requests before the check", n)
	}
}

// TestPrepare: Prepare reports every problem at once: a value of the wrong
// type, one of the wrong format, a missing value, a name no tool injects
// and a tool the library lacks.
func TestPrepare(t *testing.T) {
	agent := compile(t, `
[book:Tool {description: "Books a trip"} |
  (dest::String)==>(travelerId::String {injected: true, format: "uuid"})==>(count::Integer {injected: true})==>(::String)
]
[pay:Tool {description: "Pays"} | (accountId::String {injected: true})==>(::String)]
[missing:Tool {description: "Not in the library"} | (x::String)==>(::String)]
[desk:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Book trips."} | book, pay, missing]
`).Agents()[0]
	ok := func(context.Context, map[string]any) (any, error) { return "ok", nil }
	lib := runtime.NewLibrary(toolFunc("book", nil, ok), toolFunc("pay", nil, ok))
	_, err := runtime.Prepare(agent, lib, runtime.WithInjected(map[string]any{
		"travelerId": "not-a-uuid", "count": "three", "acountId": "a-1",
	}))
	var pe *runtime.PrepareError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v, want a PrepareError", err)
	}
	var got []string
	for _, p := range pe.Problems {
		got = append(got, p.Error())
	}
	text := strings.Join(got, "\n")
	for _, want := range []string{
		`tool "missing": is not in the tool library`,
		`tool "book": injected parameter travelerId (String): the host's value`,
		`tool "book": injected parameter count (Integer): the host's value`,
		`tool "pay": injected parameter accountId (String): the host gave no value (did you mean "acountId"?)`,
		`injected value acountId: no tool of the agent has an injected parameter of that name (did you mean "accountId"?)`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing problem %q in:\n%s", want, text)
		}
	}
	if !strings.Contains(text, "uuid") {
		t.Errorf("the format problem does not name the format:\n%s", text)
	}
	t.Log(text)
	if len(got) != 5 {
		t.Errorf("%d problems, want 5:\n%s", len(got), text)
	}

	// With good values there is nothing to report.
	if err := lib.Register(toolFunc("missing", nil, ok)); err != nil {
		t.Fatal(err)
	}
	ts, err := runtime.Prepare(agent, lib, runtime.WithInjected(map[string]any{
		"travelerId": "7d444840-9dc0-11d1-b245-5ffdce74fad2", "count": json.Number("3"), "accountId": "a-1",
	}))
	if err != nil || len(ts.Bindings) != 3 {
		t.Errorf("Prepare with good values: %v", err)
	}
}

// TestInjectedSpellings: a value the model sends for an injected parameter
// is replaced by the host's, with a warning naming the tool and the
// parameter (never the value), however the model spells the key: plainly
// or with JSON escapes ("us\u0065rId" is the key userId).
func TestInjectedSpellings(t *testing.T) {
	for _, args := range []string{
		`{"orderId":7,"userId":"mallory"}`,
		`{"orderId":7,"us\u0065rId":"mallory"}`,
		`{"orderId":7,"\u0075\u0073\u0065\u0072\u0049\u0064":"mallory"}`,
	} {
		t.Run(args, func(t *testing.T) {
			h := newHarness(t, fakeopenai.Calls(call("lookupOrder", args)), fakeopenai.Text("done"))
			var got any
			lib := runtime.NewLibrary(toolFunc("lookupOrder", nil, func(_ context.Context, a map[string]any) (any, error) {
				got = a["userId"]
				return "ok", nil
			}))
			resp := h.mustRun(t, compile(t, injectSrc).Agents()[0], lib, nil, "my orders", runtime.WithInjected(map[string]any{"userId": "alice"}))
			if len(resp.ToolsUsed) != 1 || resp.ToolsUsed[0].Error != "" || got != "alice" {
				t.Fatalf("the tool got userId %v; uses %+v", got, resp.ToolsUsed)
			}
			want := `tool "lookupOrder": the model sent a value for the injected parameter userId; the host's value was used instead`
			if !slices.Contains(resp.Warnings, want) {
				t.Errorf("warnings %q, want %q", resp.Warnings, want)
			}
			if strings.Contains(strings.Join(resp.Warnings, "\n"), "mallory") {
				t.Errorf("a warning repeats the model's value: %q", resp.Warnings)
			}
		})
	}
}

// TestRepeatedKeyWithInjected: arguments that repeat a key are refused,
// naming it, also when they hold an injected parameter, whose removal
// would otherwise have kept one of the two values silently.
func TestRepeatedKeyWithInjected(t *testing.T) {
	for _, args := range []string{
		`{"orderId":7,"orderId":8,"userId":"mallory"}`,
		`{"orderId":7,"us\u0065rId":"mallory","\u006frderId":8}`,
	} {
		t.Run(args, func(t *testing.T) {
			h := newHarness(t, fakeopenai.Calls(call("lookupOrder", args)), fakeopenai.Text("done"))
			called := false
			lib := runtime.NewLibrary(toolFunc("lookupOrder", nil, func(context.Context, map[string]any) (any, error) {
				called = true
				return "ok", nil
			}))
			resp := h.mustRun(t, compile(t, injectSrc).Agents()[0], lib, nil, "my orders", runtime.WithInjected(map[string]any{"userId": "alice"}))
			want := `tool "lookupOrder": invalid arguments: the key "orderId" appears twice (send it once)`
			if called || len(resp.ToolsUsed) != 1 || resp.ToolsUsed[0].Error != want {
				t.Fatalf("called %v; uses %+v; want the error %q", called, resp.ToolsUsed, want)
			}
			if got := toolMessages(h.srv.Requests()[1])[0].Text(); !strings.Contains(got, `the key \"orderId\" appears twice`) {
				t.Errorf("the model got %s", got)
			}
		})
	}
}
