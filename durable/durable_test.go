package durable_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gramlang/gram/durable"
	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/runtime"
)

// clerkSrc is an agent with a plain tool (lookup) and an approval tool
// (send).
const clerkSrc = `{ kind: "agents" }
[lookup:Tool {description: "Looks a thing up"} |
  (q::String)==>(::String)
]
[send:Tool {description: "Sends a thing", approval: true} |
  (to::String)==>(::String)
]
[clerk:Agent {model: "OpenAI/gpt-4o-mini", maxIterations: 10, instruction: "Help."} |
  lookup, send
]
`

// world is what the runs of a test share across the stores of its
// "processes": the tools' and the model's call counts, the model's replies
// and what a blocking tool waits for.
type world struct {
	t *testing.T

	lookups, sends atomic.Int32 // tool calls
	modelCalls     atomic.Int32
	keys           sync.Map // idempotency keys the tools saw -> count

	mu      sync.Mutex
	replies []*runtime.Reply // the model's replies, in order, by call number
	block   chan struct{}    // when set, lookup blocks until it is closed or its context ends
	entered chan struct{}    // lookup signals here when it blocks
}

func newWorld(t *testing.T, replies ...*runtime.Reply) *world {
	return &world{t: t, replies: replies}
}

// model answers a request with the reply numbered by the assistant
// messages of its conversation, so that each run, and each replay of it,
// goes through the replies in order. Calls are counted in the world, across
// the stores of a test.
func (w *world) model() runtime.Model {
	s := runtime.NewScripted()
	s.Respond = func(req *runtime.Request) (*runtime.Reply, error) {
		w.modelCalls.Add(1)
		n := 0
		for _, m := range req.Messages {
			if m.Role == runtime.RoleAssistant {
				n++
			}
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if n >= len(w.replies) {
			return nil, errors.New("the test's model has no more replies")
		}
		return w.replies[n], nil
	}
	return s
}

func (w *world) library() *runtime.Library {
	return runtime.NewLibrary(
		runtime.Tool{Name: "lookup", Invoke: func(ctx context.Context, args map[string]any) (any, error) {
			w.lookups.Add(1)
			w.note(ctx)
			w.mu.Lock()
			block, entered := w.block, w.entered
			w.mu.Unlock()
			if block != nil {
				if entered != nil {
					entered <- struct{}{}
				}
				select {
				case <-block:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return "found " + args["q"].(string), nil
		}},
		runtime.Tool{Name: "send", Invoke: func(ctx context.Context, args map[string]any) (any, error) {
			w.sends.Add(1)
			w.note(ctx)
			return "sent to " + args["to"].(string), nil
		}},
	)
}

func (w *world) note(ctx context.Context) {
	if k := runtime.IdempotencyKey(ctx); k != "" {
		v, _ := w.keys.LoadOrStore(k, new(atomic.Int32))
		v.(*atomic.Int32).Add(1)
	}
}

// binder compiles the spec's source and binds the world's tools and model.
func (w *world) binder() durable.Binder {
	return func(ctx context.Context, spec durable.Spec) (*runtime.Bound, error) {
		prog := gramtest.Compile(w.t, spec.Sources[0].Text)
		a := prog.Agent(spec.Agent)
		if a == nil {
			return nil, errors.New("no agent " + spec.Agent)
		}
		return &runtime.Bound{Agent: a, Library: w.library(), Options: []runtime.Option{
			runtime.WithModel(w.model()), runtime.WithLogger(slog.New(slog.DiscardHandler))}}, nil
	}
}

func (w *world) spec(input string) durable.Spec {
	return durable.Spec{Agent: "clerk", Sources: []durable.Source{{Path: "clerk.gram", Text: clerkSrc}}, Input: input}
}

// open opens the store at url for the world, closed when the test ends.
func (w *world) open(url, executor string) *durable.Store {
	w.t.Helper()
	s, err := durable.Open(context.Background(), url, durable.Options{ExecutorID: executor, Bind: w.binder()})
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { _ = s.Close() })
	return s
}

// approvalReplies: look up, then send (an approval tool), then answer.
func approvalReplies() []*runtime.Reply {
	return []*runtime.Reply{
		runtime.CallReply(runtime.Call("lookup", `{"q":"bob"}`)),
		runtime.CallReply(runtime.Call("send", `{"to":"bob"}`)),
		runtime.TextReply("done"),
	}
}

func sqliteURL(t *testing.T) string { return filepath.Join(t.TempDir(), "runs", "runs.db") }

func wait(t *testing.T, s *durable.Store, id string) *durable.Run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := s.Wait(ctx, id)
	if err != nil {
		t.Fatalf("waiting for %s: %v", id, err)
	}
	return r
}

func start(t *testing.T, s *durable.Store, spec durable.Spec) string {
	t.Helper()
	id, err := s.Start(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func decide(t *testing.T, s *durable.Store, id string, ds ...runtime.Decision) {
	t.Helper()
	if err := s.Decide(context.Background(), id, ds); err != nil {
		t.Fatal(err)
	}
}

func wantStatus(t *testing.T, r *durable.Run, status string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("the run %s is %s (%s), want %s", r.ID, r.Status, r.Error, status)
	}
}

func TestApprove(t *testing.T) {
	w := newWorld(t, approvalReplies()...)
	s := w.open(sqliteURL(t), "")
	id := start(t, s, w.spec("send it to bob"))
	r := wait(t, s, id)
	wantStatus(t, r, durable.StatusAwaitingApproval)
	if len(r.Pending) != 1 || r.Pending[0].Tool != "send" || r.Agent != "clerk" {
		t.Fatalf("pending %+v of agent %q, want one call of send by clerk", r.Pending, r.Agent)
	}
	if w.sends.Load() != 0 {
		t.Fatal("the approval tool ran before the decision")
	}
	decide(t, s, id, runtime.Decision{CallID: r.Pending[0].CallID, Approve: true})
	r = wait(t, s, id)
	wantStatus(t, r, "completed")
	if r.Response == nil || r.Response.Content != "done" {
		t.Fatalf("response %+v, want the answer done", r.Response)
	}
	if n := w.sends.Load(); n != 1 {
		t.Errorf("send ran %d times, want once", n)
	}
	if n := w.lookups.Load(); n != 1 {
		t.Errorf("lookup ran %d times, want once", n)
	}
	// Every tool call had a key of its own: the run's id and the step.
	n := 0
	w.keys.Range(func(k, v any) bool {
		n++
		if !strings.HasPrefix(k.(string), id+"/") || v.(*atomic.Int32).Load() != 1 {
			t.Errorf("idempotency key %q used %d times, want RUN_ID/STEP once", k, v.(*atomic.Int32).Load())
		}
		return true
	})
	if n != 2 {
		t.Errorf("%d idempotency keys, want 2 (one per tool call)", n)
	}
	// A second decision for the same wait is an error.
	if err := s.Decide(context.Background(), id, []runtime.Decision{{CallID: "all", Approve: true}}); err == nil {
		t.Error("deciding a finished run succeeded")
	}
}

func TestDeny(t *testing.T) {
	w := newWorld(t, approvalReplies()...)
	s := w.open(sqliteURL(t), "")
	id := start(t, s, w.spec("send it to bob"))
	r := wait(t, s, id)
	wantStatus(t, r, durable.StatusAwaitingApproval)
	decide(t, s, id, runtime.Decision{CallID: "all", Approve: false, Reason: "not bob"})
	r = wait(t, s, id)
	wantStatus(t, r, "completed")
	if w.sends.Load() != 0 {
		t.Error("a denied call ran")
	}
	conv := r.Response.Conversation
	var denied bool
	for _, m := range conv {
		if m.Role == runtime.RoleTool && strings.Contains(m.Content, "not bob") {
			denied = true
		}
	}
	if !denied {
		t.Errorf("no tool message gives the reason of the denial: %+v", conv)
	}
}

func TestDecideChecked(t *testing.T) {
	w := newWorld(t, approvalReplies()...)
	s := w.open(sqliteURL(t), "")
	id := start(t, s, w.spec("send it to bob"))
	wantStatus(t, wait(t, s, id), durable.StatusAwaitingApproval)
	err := s.Decide(context.Background(), id, []runtime.Decision{{CallID: "nope", Approve: true}})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("deciding an unknown call: %v, want an error naming it", err)
	}
	// The run still waits.
	r, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, r, durable.StatusAwaitingApproval)
	if _, err := s.Get(context.Background(), "run-nothing"); !errors.Is(err, durable.ErrNotFound) {
		t.Errorf("Get of an unknown run: %v, want ErrNotFound", err)
	}
}

// TestRestartWhileWaiting: a store closed while its run waits for a
// decision; a new store on the same file, of the same executor id, takes
// the decision and finishes the run without running its steps again.
func TestRestartWhileWaiting(t *testing.T) {
	w := newWorld(t, approvalReplies()...)
	url := sqliteURL(t)
	s1 := w.open(url, "host-1")
	id := start(t, s1, w.spec("send it to bob"))
	wantStatus(t, wait(t, s1, id), durable.StatusAwaitingApproval)
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := w.open(url, "host-1")
	r := wait(t, s2, id)
	wantStatus(t, r, durable.StatusAwaitingApproval)
	decide(t, s2, id, runtime.Decision{CallID: "all", Approve: true})
	r = wait(t, s2, id)
	wantStatus(t, r, "completed")
	if a, b, m := w.lookups.Load(), w.sends.Load(), w.modelCalls.Load(); a != 1 || b != 1 || m != 3 {
		t.Errorf("lookup ran %d times, send %d, the model %d; want 1, 1, 3", a, b, m)
	}
}

// TestKilledMidStep: a store closed while a tool runs; the reopened store
// runs that step again and not the steps before it.
func TestKilledMidStep(t *testing.T) {
	w := newWorld(t,
		runtime.CallReply(runtime.Call("send", `{"to":"bob"}`)),
		runtime.CallReply(runtime.Call("lookup", `{"q":"bob"}`)),
		runtime.TextReply("done"),
	)
	url := sqliteURL(t)
	s1 := w.open(url, "host-1")
	id := start(t, s1, w.spec("look bob up"))
	wantStatus(t, wait(t, s1, id), durable.StatusAwaitingApproval)
	w.mu.Lock()
	w.block, w.entered = make(chan struct{}), make(chan struct{}, 1)
	w.mu.Unlock()
	decide(t, s1, id, runtime.Decision{CallID: "all", Approve: true})
	select {
	case <-w.entered:
	case <-time.After(60 * time.Second):
		t.Fatal("lookup was not called")
	}
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	close(w.block)
	w.block = nil
	w.mu.Unlock()
	s2 := w.open(url, "host-1")
	r := wait(t, s2, id)
	wantStatus(t, r, "completed")
	if a, b, m := w.lookups.Load(), w.sends.Load(), w.modelCalls.Load(); a != 2 || b != 1 || m != 3 {
		t.Errorf("lookup ran %d times, send %d, the model %d; want 2 (the step killed, then again), 1, 3", a, b, m)
	}
	// Both executions of the killed step had the same key.
	var twice int
	w.keys.Range(func(k, v any) bool {
		if v.(*atomic.Int32).Load() == 2 {
			twice++
		}
		return true
	})
	if twice != 1 {
		t.Errorf("%d idempotency keys used twice, want 1 (the step run again)", twice)
	}
}

// TestResume: a command-line process (an executor id of its own) stops
// while its run waits; another, of another id, decides and resumes it.
func TestResume(t *testing.T) {
	w := newWorld(t, approvalReplies()...)
	url := sqliteURL(t)
	s1 := w.open(url, "")
	id := start(t, s1, w.spec("send it to bob"))
	other := start(t, s1, w.spec("send it to bob")) // a second run, decided never
	wantStatus(t, wait(t, s1, id), durable.StatusAwaitingApproval)
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	_ = other
	s2 := w.open(url, "")
	decide(t, s2, id, runtime.Decision{CallID: "all", Approve: true})
	if err := s2.Resume(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, wait(t, s2, id), "completed")
	if err := s2.Resume(context.Background(), id); err == nil {
		t.Error("resuming a finished run succeeded")
	}
}

func TestCancel(t *testing.T) {
	w := newWorld(t, approvalReplies()...)
	s := w.open(sqliteURL(t), "")
	id := start(t, s, w.spec("send it to bob"))
	wantStatus(t, wait(t, s, id), durable.StatusAwaitingApproval)
	if err := s.Cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	r := wait(t, s, id)
	wantStatus(t, r, durable.StatusCancelled)
	if err := s.Decide(context.Background(), id, []runtime.Decision{{CallID: "all", Approve: true}}); err == nil {
		t.Error("deciding a cancelled run succeeded")
	}
	time.Sleep(100 * time.Millisecond)
	if w.sends.Load() != 0 {
		t.Error("the cancelled run's approval tool ran")
	}
	if err := s.Cancel(context.Background(), id); err == nil {
		t.Error("cancelling a cancelled run succeeded")
	}
}

func TestListByOwner(t *testing.T) {
	w := newWorld(t, runtime.TextReply("hello"))
	s := w.open(sqliteURL(t), "")
	ids := map[string]string{}
	for _, owner := range []string{"ann", "bob", "ann"} {
		spec := w.spec("hi")
		spec.Owner = owner
		id := start(t, s, spec)
		wantStatus(t, wait(t, s, id), "completed")
		ids[id] = owner
	}
	runs, err := s.List(context.Background(), durable.Filter{Owner: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs of ann, want 2", len(runs))
	}
	for _, r := range runs {
		if r.Owner != "ann" || ids[r.ID] != "ann" {
			t.Errorf("run %s of %q listed for ann", r.ID, r.Owner)
		}
	}
	if runs[0].Created.Before(runs[1].Created) {
		t.Error("runs not listed newest first")
	}
	all, err := s.List(context.Background(), durable.Filter{Status: "completed", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 {
		t.Errorf("%d completed runs with a limit of 2", len(all))
	}
	none, err := s.List(context.Background(), durable.Filter{Status: durable.StatusAwaitingApproval})
	if err != nil || len(none) != 0 {
		t.Errorf("runs awaiting approval: %v, %v; want none", none, err)
	}
}

// TestDecideTwice: of two decisions for the same wait, given through two
// stores before the run reads either, the second is an error (ErrDecided),
// not lost without a word; the first is the one applied.
func TestDecideTwice(t *testing.T) {
	w := newWorld(t, approvalReplies()...)
	url := sqliteURL(t)
	s1 := w.open(url, "")
	id := start(t, s1, w.spec("send it to bob"))
	wantStatus(t, wait(t, s1, id), durable.StatusAwaitingApproval)
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	s2, s3 := w.open(url, ""), w.open(url, "")
	decide(t, s2, id, runtime.Decision{CallID: "all", Approve: true})
	err := s3.Decide(context.Background(), id, []runtime.Decision{{CallID: "all", Reason: "no"}})
	if !errors.Is(err, durable.ErrDecided) || !strings.Contains(err.Error(), id) {
		t.Fatalf("the second decision: %v", err)
	}
	if err := s2.Resume(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, wait(t, s2, id), "completed")
	if n := w.sends.Load(); n != 1 {
		t.Errorf("send ran %d times; want 1, the first decision's", n)
	}
}

// TestResumeNotTakenOver: runs resumed by one store are run by it, not by
// another store open on the same file whose Binder cannot build them (a
// command running something else), which would fail them.
func TestResumeNotTakenOver(t *testing.T) {
	w := newWorld(t, approvalReplies()...)
	url := sqliteURL(t)
	s1 := w.open(url, "")
	var ids []string
	for range 8 {
		id := start(t, s1, w.spec("send it to bob"))
		wantStatus(t, wait(t, s1, id), durable.StatusAwaitingApproval)
		ids = append(ids, id)
	}
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := w.open(url, "")
	for _, id := range ids {
		decide(t, s2, id, runtime.Decision{CallID: "all", Approve: true})
		if err := s2.Resume(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	// A store opened now serves the queues at once.
	bystander, err := durable.Open(context.Background(), url, durable.Options{Bind: func(context.Context, durable.Spec) (*runtime.Bound, error) {
		return nil, errors.New("this store runs no resumed run")
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer bystander.Close()
	for _, id := range ids {
		if r := wait(t, s2, id); r.Status != "completed" {
			t.Errorf("run %s: %s %s", id, r.Status, r.Error)
		}
	}
}

// TestDecideWakesAtOnce: a decision made through the store of the process
// that runs the run wakes it at once, not at DBOS's next poll for messages
// (once a second on SQLite).
func TestDecideWakesAtOnce(t *testing.T) {
	var replies []*runtime.Reply
	const rounds = 3
	for range rounds {
		replies = append(replies, runtime.CallReply(runtime.Call("send", `{"to":"bob"}`)))
	}
	w := newWorld(t, append(replies, runtime.TextReply("done"))...)
	s := w.open(sqliteURL(t), "")
	id := start(t, s, w.spec("send it to bob, three times"))
	var took []time.Duration
	for range rounds {
		r := wait(t, s, id)
		wantStatus(t, r, durable.StatusAwaitingApproval)
		begin := time.Now()
		decide(t, s, id, runtime.Decision{CallID: r.Pending[0].CallID, Approve: true})
		r = wait(t, s, id)
		took = append(took, time.Since(begin))
	}
	wantStatus(t, wait(t, s, id), "completed")
	slow := 0
	for _, d := range took {
		if d > 400*time.Millisecond {
			slow++
		}
	}
	if slow == rounds {
		t.Errorf("every decision took over 400ms to reach the run: %v", took)
	}
}
