package project

import (
	"path/filepath"
	"testing"
)

// TestPackageProgram checks that the program of a package holds the
// agents, tools and records of its member files, and nothing of its test
// and data files.
func TestPackageProgram(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"tools.gram":      "{kind: \"agents\"}\n[Order:Record | (id::String)]\n[getOrder:Tool | (id::String)==>(::Order)]\n",
		"agent.gram":      "{kind: \"agents\"}\n[helper:Agent {model: \"OpenAI/gpt-4o-mini\"} | getOrder]\n",
		"agent_test.gram": "{kind: \"tests\"}\n[asks:Test {agent: helper} | (:User {says: \"Hi\"}), (:Answer {contains: \"Hi\"})]\n",
		"data.gram":       "{kind: \"data\"}\n[x:Record | (y::String)]\n",
	})
	l, err := Load(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := l.Program()
	if p.File.Path != dir || p.NumAgents() != 1 || p.NumTools() != 1 || len(p.Records) != 1 || len(p.Tests) != 0 {
		t.Errorf("program of %s: %d agents, %d tools, %d records, %d tests; want 1, 1, 1, 0", p.File.Path, p.NumAgents(), p.NumTools(), len(p.Records), len(p.Tests))
	}
}

// TestLoadFilesByDir checks that the packages of files in two directories are
// loaded in the order of the directories' first files, each with its
// other files and the files given (one set aside by its name among them).
func TestLoadFilesByDir(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeFiles(t, a, map[string]string{"tools.gram": "{kind: \"agents\"}\n[getOrder:Tool | (id::String)==>(::String)]\n", "_scratch.gram": "(x)\n"})
	writeFiles(t, b, map[string]string{"agent.gram": "{kind: \"agents\"}\n[helper:Agent {model: \"OpenAI/gpt-4o-mini\"}]\n"})
	given := []string{filepath.Join(b, "agent.gram"), filepath.Join(a, "_scratch.gram")}
	got := LoadFiles(given, LoadOptions{})
	if len(got) != 2 || got[0].Dir != b || got[1].Dir != a {
		t.Fatalf("LoadFiles: %d packages; want those of %s and %s in that order", len(got), b, a)
	}
	if got[1].Lookup(given[1]) == nil || got[1].Lookup(filepath.Join(a, "tools.gram")) == nil {
		t.Errorf("the package of %s lacks the file given or its other file", a)
	}
}
