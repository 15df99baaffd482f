package durable_test

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gramlang/gram/durable"
	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/runtime"
)

// bossSrc: boss uses the agent helper, whose tool send needs approval.
const bossSrc = `{ kind: "agents" }
[send:Tool {description: "Sends a thing", approval: true} |
  (to::String)==>(::String)
]
[helper:Agent {model: "OpenAI/gpt-4o-mini", maxIterations: 5, instruction: "Help."} |
  send
]
[boss:Agent {model: "OpenAI/gpt-4o-mini", maxIterations: 5, instruction: "Boss."} |
  helper
]
`

// TestNestedApprovalAfterRestart: a sub-agent's call of an approval tool
// waits durably; the store is closed and reopened (the same executor id),
// the decision is taken there, and the whole tree finishes without calling
// the models or tools before the wait again.
func TestNestedApprovalAfterRestart(t *testing.T) {
	var modelCalls, sends atomic.Int32
	replies := map[string][]*runtime.Reply{
		"Boss.": {runtime.CallReply(runtime.Call("helper", `{"message":"send it to bob"}`)), runtime.TextReply("boss done")},
		"Help.": {runtime.CallReply(runtime.Call("send", `{"to":"bob"}`)), runtime.TextReply("helper done")},
	}
	model := runtime.NewScripted()
	model.Respond = func(req *runtime.Request) (*runtime.Reply, error) {
		modelCalls.Add(1)
		n := 0
		for _, m := range req.Messages {
			if m.Role == runtime.RoleAssistant {
				n++
			}
		}
		for key, rs := range replies {
			if strings.Contains(req.Messages[0].Content, key) && n < len(rs) {
				return rs[n], nil
			}
		}
		return runtime.TextReply("?"), nil
	}
	lib := runtime.NewLibrary(runtime.Tool{Name: "send", Invoke: func(ctx context.Context, args map[string]any) (any, error) {
		sends.Add(1)
		return "sent", nil
	}})
	bind := func(ctx context.Context, spec durable.Spec) (*runtime.Bound, error) {
		prog := gramtest.Compile(t, spec.Sources[0].Text)
		return &runtime.Bound{Agent: prog.Agent(spec.Agent), Library: lib, Options: []runtime.Option{
			runtime.WithProgram(prog), runtime.WithModel(model), runtime.WithLogger(slog.New(slog.DiscardHandler))}}, nil
	}
	url := sqliteURL(t)
	open := func() *durable.Store {
		s, err := durable.Open(context.Background(), url, durable.Options{ExecutorID: "host-1", Bind: bind})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	s1 := open()
	id := start(t, s1, durable.Spec{Agent: "boss", Sources: []durable.Source{{Path: "boss.gram", Text: bossSrc}}, Input: "go"})
	r := wait(t, s1, id)
	wantStatus(t, r, durable.StatusAwaitingApproval)
	if len(r.Pending) != 1 || r.Pending[0].Agent != "helper" || r.Pending[0].Tool != "send" {
		t.Fatalf("pending %+v, want helper's call of send", r.Pending)
	}
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := open()
	decide(t, s2, id, runtime.Decision{CallID: "all", Approve: true})
	r = wait(t, s2, id)
	wantStatus(t, r, "completed")
	if r.Response.Content != "boss done" {
		t.Errorf("answer %q, want boss done", r.Response.Content)
	}
	if m, s := modelCalls.Load(), sends.Load(); m != 4 || s != 1 {
		t.Errorf("the models were called %d times and send ran %d times; want 4 and 1", m, s)
	}
}
