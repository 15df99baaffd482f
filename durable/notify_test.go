package durable

import "testing"

// TestNotifyWakesOneRun: a change of one run wakes the waits of that run
// only, so that many runs waiting at once do not all read the store again
// whenever one of them changes.
func TestNotifyWakesOneRun(t *testing.T) {
	s := &Store{changed: map[string]chan struct{}{}, waiters: map[string]int{}}
	done := s.watch("run-a")
	a, b := s.changes("run-a"), s.changes("run-b")
	if s.changes("run-a") != a {
		t.Fatal("a second wait for run-a got another channel")
	}
	s.notify("run-b")
	select {
	case <-a:
		t.Fatal("a change of run-b woke the waits of run-a")
	default:
	}
	select {
	case <-b:
	default:
		t.Fatal("a change of run-b did not wake its waits")
	}
	if s.changes("run-b") == b {
		t.Fatal("the next change of run-b has the closed channel")
	}
	done()
	if _, ok := s.changed["run-a"]; ok || len(s.waiters) != 0 {
		t.Fatal("the channel of run-a is kept after its last wait")
	}
}

// TestSQLiteOneConnection: the SQLite store's handle has one connection,
// on which the store's writers queue in turn rather than contend for
// SQLite's lock.
func TestSQLiteOneConnection(t *testing.T) {
	db, err := openSQLite(t.Context(), t.TempDir()+"/runs.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := db.Stats().MaxOpenConnections; n != 1 {
		t.Fatalf("MaxOpenConnections = %d, want 1", n)
	}
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode %q, %v; want wal", mode, err)
	}
}
