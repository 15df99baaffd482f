package durable_test

import (
	"testing"

	"github.com/gramlang/gram/durable"
	"github.com/gramlang/gram/internal/pgtest"
	"github.com/gramlang/gram/runtime"
)

// TestPostgresReplicas: two stores (two executors) share a PostgreSQL
// database; a run started on one is decided through the other and ends.
func TestPostgresReplicas(t *testing.T) {
	pg := pgtest.Start(t)
	w := newWorld(t, approvalReplies()...)
	a := w.open(pg.URL, "replica-a")
	b := w.open(pg.URL, "replica-b")
	id := start(t, a, w.spec("send it to bob"))
	r := wait(t, b, id)
	wantStatus(t, r, durable.StatusAwaitingApproval)
	decide(t, b, id, runtime.Decision{CallID: r.Pending[0].CallID, Approve: true})
	r = wait(t, b, id)
	wantStatus(t, r, "completed")
	if r.Response.Content != "done" {
		t.Errorf("answer %q, want done", r.Response.Content)
	}
	if a, s, m := w.lookups.Load(), w.sends.Load(), w.modelCalls.Load(); a != 1 || s != 1 || m != 3 {
		t.Errorf("lookup ran %d times, send %d, the model %d; want 1, 1, 3", a, s, m)
	}
	for _, s := range []*durable.Store{a, b} {
		got, err := s.Get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, got, "completed")
	}
}
