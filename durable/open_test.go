package durable_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gramlang/gram/durable"
)

// TestOpenErrors: each wrong store names what is wrong and never prints
// the password of a PostgreSQL URL.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	bind := newWorld(t).binder()
	cases := []struct{ url, want string }{
		{"", "no store given"},
		{"mysql://u:s3cret@db/runs", `scheme "mysql" is not supported`},
		{"sqlite://host/runs.db", "names a host"},
		{"sqlite:", "has no file path"},
		{"sqlite::memory:", "not a file path"},
		{filepath.Join(dir, "a?b.db"), "contains ? or #"},
		{dir, "is a directory"},
		{"postgres://u:s3cret@/runs", "names no host"},
		{"host=db user=u password=s3cret dbname=runs", "postgres://USER"},
		{"postgres://u:s3cret@db.example", "names no database"},
		{"postgres://u:s3cret%zz@db/runs", "cannot be read"},
		{"postgres://u:s3cret@s3cret@127.0.0.1:1/runs?sslmode=disable&connect_timeout=1", "%40"},
		{"postgres://u:s3cret@127.0.0.1:1/runs?sslmode=disable&connect_timeout=1", "127.0.0.1:1"},
		{"postgres://127.0.0.1:99999/runs?user=u&password=s3cret", "invalid port"},
		{"postgres://127.0.0.1:1/runs?user=u&password=s3cret&sslmode=disable&connect_timeout=1", "127.0.0.1:1"},
		{"postgres://u:pw@127.0.0.1:1/runs?sslpassword=s3cret&sslmode=disable&connect_timeout=1", "127.0.0.1:1"},
	}
	for _, c := range cases {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		s, err := durable.Open(ctx, c.url, durable.Options{Bind: bind})
		cancel()
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", c.url)
			continue
		}
		t.Logf("%s: %v", c.url, err)
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%q): %v; want it to say %q", c.url, err, c.want)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open(%q): the error shows the password: %v", c.url, err)
		}
	}
	if _, err := durable.Open(context.Background(), filepath.Join(dir, "x.db"), durable.Options{}); err == nil || !strings.Contains(err.Error(), "Bind") {
		t.Errorf("Open without a Binder: %v", err)
	}
}

// TestOpenCreatesDirectories: a bare path and sqlite:PATH open the same
// file, its directories created.
func TestOpenCreatesDirectories(t *testing.T) {
	w := newWorld(t, approvalReplies()...)
	path := filepath.Join(t.TempDir(), "a", "b", "runs.db")
	s := w.open(path, "")
	id := start(t, s, w.spec("hi"))
	wait(t, s, id)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	s2 := w.open("sqlite:"+path, "")
	if _, err := s2.Get(context.Background(), id); err != nil {
		t.Errorf("the run is not found through sqlite:PATH: %v", err)
	}
}

// TestRedactStore: a store URL is shown with every password masked, in its
// user information or its query; a file path is shown as it is.
func TestRedactStore(t *testing.T) {
	cases := []struct{ url, want string }{
		{"/var/lib/gram/runs.db", "/var/lib/gram/runs.db"},
		{"postgres://u:pw@db:5432/runs", "postgres://u:xxxxx@db:5432/runs"},
		{"postgres://db/runs?password=pw&user=u", "postgres://db/runs?password=xxxxx&user=u"},
		{"postgres://db/runs?PassWord=pw", "postgres://db/runs?PassWord=xxxxx"},
		{"postgres://u:s3%zz@db/runs", "postgres://u:xxxxx@db/runs"},
	}
	for _, c := range cases {
		if got := durable.RedactStore(c.url); got != c.want {
			t.Errorf("RedactStore(%q) = %q, want %q", c.url, got, c.want)
		}
	}
	got := durable.StoreSecrets("postgres://u:one@db/runs?password=two&sslpassword=three")
	slices.Sort(got)
	if strings.Join(got, ",") != "one,three,two" {
		t.Errorf("StoreSecrets: %q", got)
	}
}
