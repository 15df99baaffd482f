package durable

import (
	"context"
	"testing"
)

// TestStatementsKept: the store's SQLite connection prepares a query once
// and keeps its statement; a query run again while the rows of the kept
// statement are open gets a statement of its own.
func TestStatementsKept(t *testing.T) {
	ctx := context.Background()
	db, err := openSQLite(ctx, t.TempDir()+"/runs.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// One connection, whose rows stay open while it runs another query.
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "CREATE TABLE t (n INTEGER)"); err != nil {
		t.Fatal(err)
	}
	const insert = "INSERT INTO t (n) VALUES (?)"
	for n := range 3 {
		if _, err := conn.ExecContext(ctx, insert, n); err != nil {
			t.Fatal(err)
		}
	}
	const query = "SELECT n FROM t WHERE n >= ? ORDER BY n"
	outer, err := conn.QueryContext(ctx, query, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for outer.Next() {
		var n, count int
		if err := outer.Scan(&n); err != nil {
			t.Fatal(err)
		}
		inner, err := conn.QueryContext(ctx, query, n)
		if err == nil {
			for inner.Next() {
				count++
			}
			err = inner.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, count)
	}
	if err := outer.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != 3 || got[1] != 2 || got[2] != 1 {
		t.Fatalf("counts %v, want [3 2 1]", got)
	}
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(*cachingConn)
		if !ok {
			t.Fatalf("the connection is a %T, not one that keeps its statements", dc)
		}
		for _, q := range []string{insert, query} {
			if cs := c.stmts[q]; cs == nil || cs.busy {
				t.Errorf("the statement of %q is not kept, or still busy", q)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
