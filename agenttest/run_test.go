package agenttest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gramlang/gram/runtime"
)

// TestRecordWithoutModel: a runner that records, with no API key, reports
// the missing key before any test runs (ModelError, naming the agent), and
// a test run anyway ends in a configuration error without making its
// cassette directory.
func TestRecordWithoutModel(t *testing.T) {
	test := compileTest(t, `[greets:Test {agent: a} | (:User {says: "Hi"}), (:Answer {contains: "Hi"})]`)
	dir := t.TempDir()
	clearModelEnv(t)
	r := &Runner{Mode: ModeRecord, Cassettes: filepath.Join(dir, "cassettes")}
	jobs := []Job{{Path: filepath.Join(dir, "a_test.gram"), Test: test}}

	agent, err := r.ModelError(jobs)
	var ce *runtime.ConfigError
	if agent == nil || agent.Name != "a" || !errors.As(err, &ce) {
		t.Errorf("ModelError = %v, %v; want agent a and a configuration error", agent, err)
	}
	res := r.RunAll(context.Background(), jobs)[0]
	if res.Status != Error || !res.Config {
		t.Errorf("result: %s (config %v): %s", res.Status, res.Config, res.Error)
	}
	if _, err := os.Stat(filepath.Join(dir, "cassettes")); !os.IsNotExist(err) {
		t.Errorf("the cassette directory was made for a test that could not run: %v", err)
	}

	// Replayed tests need no model.
	r.Mode = ModeReplay
	if agent, err := r.ModelError(jobs); agent != nil || err != nil {
		t.Errorf("ModelError in replay mode = %v, %v", agent, err)
	}
}

// clearModelEnv empties, for the test, the environment variables of the
// models' keys and servers, so that no model client can be made from them.
func clearModelEnv(t *testing.T) {
	for _, v := range append(slices.Clone(runtime.KeyVars), "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "GEMINI_BASE_URL", "OLLAMA_HOST") {
		t.Setenv(v, "")
	}
}
