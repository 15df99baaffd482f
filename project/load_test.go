package project

import (
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
	if p.File.Path != dir || len(p.Agents) != 1 || len(p.Tools) != 1 || len(p.Records) != 1 || len(p.Tests) != 0 {
		t.Errorf("program of %s: %d agents, %d tools, %d records, %d tests; want 1, 1, 1, 0", p.File.Path, len(p.Agents), len(p.Tools), len(p.Records), len(p.Tests))
	}
}
