package durable_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gramlang/gram/durable"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// TestDefaultStore: the store without a URL is under XDG_STATE_HOME when
// it is an absolute path, else under ~/.local/state; without either there
// is none.
func TestDefaultStore(t *testing.T) {
	state, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", state)
	if got, err := durable.DefaultStore(); err != nil || got != filepath.Join(state, "gram", "runs.db") {
		t.Errorf("with XDG_STATE_HOME: %q, %v", got, err)
	}
	t.Setenv("XDG_STATE_HOME", "relative")
	if got, err := durable.DefaultStore(); err != nil || got != filepath.Join(home, ".local", "state", "gram", "runs.db") {
		t.Errorf("with a relative XDG_STATE_HOME: %q, %v", got, err)
	}
	t.Setenv("HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	if _, err := durable.DefaultStore(); err == nil || !strings.Contains(err.Error(), "--store PATH") {
		t.Errorf("without HOME: %v", err)
	}
}

// TestMissingStore: a SQLite file that does not exist is missing, as the
// path given; an existing file and a PostgreSQL URL are not.
func TestMissingStore(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	have := filepath.Join(dir, "have.db")
	if err := os.WriteFile(have, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		store, path string
		missing     bool
	}{
		{"typo.db", "typo.db", true},
		{"sqlite:typo.db", "typo.db", true},
		{"sqlite://" + dir + "/typo.db", dir + "/typo.db", true},
		{"", filepath.Join(dir, "gram", "runs.db"), true},
		{have, "", false},
		{"sqlite:" + have, "", false},
		{"postgres://u:p@db/runs", "", false},
		{"host=db user=u password=p dbname=runs", "", false},
	}
	for _, c := range cases {
		if path, missing := durable.MissingStore(c.store); path != c.path || missing != c.missing {
			t.Errorf("%q: %q, %v; want %q, %v", c.store, path, missing, c.path, c.missing)
		}
	}
}

// TestHandover: the store gets the run handed over, when it is of the
// spec's agent.
func TestHandover(t *testing.T) {
	var h durable.Handover
	if _, err := h.Bind(context.Background(), durable.Spec{Agent: "a"}); err == nil {
		t.Error("a run bound before any was handed over")
	}
	b := &runtime.Bound{Agent: &schema.Agent{Name: "a"}}
	h.Set(b)
	if got, err := h.Bind(context.Background(), durable.Spec{Agent: "a"}); got != b || err != nil {
		t.Errorf("the run handed over: %v, %v", got, err)
	}
	if _, err := h.Bind(context.Background(), durable.Spec{Agent: "b"}); err == nil || !strings.Contains(err.Error(), `agent "b"`) {
		t.Errorf("another agent's run: %v", err)
	}
}

// TestPackageSources: a run of a file keeps the member files of its
// package, tests left out, and compiles them again as one package; a run
// of a text keeps the text alone.
func TestPackageSources(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"main.gram":      "{kind: \"agents\"}\n[lookup:Tool {description: \"Look up\"} | (q::String)==>(::String)]\n[main:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Help.\"} | lookup, helper]\n",
		"helper.gram":    "{kind: \"agents\"}\n[helper:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Help more.\"}]\n",
		"main_test.gram": "{kind: \"tests\"}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	main := filepath.Join(dir, "main.gram")
	srcs, err := durable.PackageSources(main, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range srcs {
		names = append(names, filepath.Base(s.Path))
	}
	if strings.Join(names, " ") != "helper.gram main.gram" {
		t.Fatalf("sources: %v", names)
	}
	spec := durable.Spec{Agent: "main", Sources: srcs, Settings: map[string]string{durable.SettingPath: main}}
	prog, tree, err := spec.Programs()
	if err != nil {
		t.Fatal(err)
	}
	if prog.Agent("main") == nil || prog.Agent("helper") != nil || tree.Agent("helper") == nil {
		t.Errorf("programs: file %v, package %v", prog.AgentNames(), tree.AgentNames())
	}
	spec.Sources = spec.Sources[1:2]
	spec.Settings[durable.SettingPath] = "-"
	if _, _, err := spec.Programs(); err == nil || !strings.Contains(err.Error(), "has errors") {
		t.Errorf("a text that uses an agent it lacks: %v", err)
	}
	spec.Sources = nil
	if _, _, err := spec.Programs(); err == nil {
		t.Error("a spec without sources compiled")
	}
}
