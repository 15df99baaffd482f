package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gramlang/gram/durable"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

// cmdJSONEnv implements `json-env VAR FIELD`: it sets VAR to the string
// FIELD of the JSON object on standard output (gramc run --json=final's
// run_id, to resume the run).
func cmdJSONEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: json-env VAR FIELD")
	}
	var obj map[string]any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile("stdout")), &obj))
	v, ok := obj[args[1]].(string)
	if !ok {
		ts.Fatalf("json-env: standard output has no string %q", args[1])
	}
	ts.Setenv(args[0], fmt.Sprint(v))
}

// TestRunStoreKeepsNoInjected: the spec gramc run keeps in the store holds
// the package's sources and the settings given, and no injected value,
// which may be a secret.
func TestRunStoreKeepsNoInjected(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	const src = `[refund:Tool {description: "Refunds an order", approval: true} |
  (order::String)==>(token::String {injected: true})==>(::String)
]
[support:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} | refund]
`
	if err := os.WriteFile("support.gram", []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakeopenai.New(t, fakeopenai.Calls(fakeopenai.Call{Name: "refund", Arguments: `{"order":"A1"}`}))
	const secret = "tok-inject-0123456789"
	var stdout, stderr strings.Builder
	code := Main([]string{"run", "support.gram", "--json=final", "--store", "runs.db", "--base-url", srv.URL,
		"--inject", "token=" + secret, "--tool", "refund=cat", "--max-iterations", "7", "-m", "Refund A1"},
		strings.NewReader(""), &stdout, &stderr)
	if code != exitAwaiting {
		t.Fatalf("gramc run: exit %d, want %d\n%s%s", code, exitAwaiting, stdout.String(), stderr.String())
	}
	var resp struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &resp); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := durable.Open(ctx, "runs.db", durable.Options{Bind: func(context.Context, durable.Spec) (*runtime.Bound, error) {
		return nil, errors.New("not run here")
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spec, err := st.SpecOf(ctx, resp.RunID)
	if err != nil {
		t.Fatal(err)
	}
	text, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), secret) || len(spec.Injected) > 0 {
		t.Errorf("the run's spec keeps the injected value (%d injected values kept)", len(spec.Injected))
	}
	if len(spec.Sources) != 1 || spec.Sources[0].Text != src || spec.Settings["max-iterations"] != "7" || spec.Input != "Refund A1" {
		t.Errorf("the run's spec does not keep the sources, the settings given and the input: %d sources, settings %v, input %q",
			len(spec.Sources), spec.Settings, spec.Input)
	}
}
