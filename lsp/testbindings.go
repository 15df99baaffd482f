// The project's bindings for a test run from the editor.
//
// gram.runTest binds the tools of a test as `gramc test` does with no
// flags: the built-in tools, then what the project's bindings file (the
// nearest bindings.gram, in the test file's directory or a parent up to the
// repository root, see project.FindBindings) gives: tools bound to
// programs (run in the bindings file's directory), MCP servers, injected
// values, the model endpoint and its API key, model overrides and the
// cassette directory. A bindings file with errors, or one that reads an
// environment variable that is not set, stops the run before any model
// call, with the reason (the endpoint's key only when the test runs against
// the model: a test with a cassette replays it without a key).

package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/gramlang/gram/agenttest"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/mcp"
	"github.com/gramlang/gram/schema"
)

// testBinding is what a test run from the editor is bound to.
type testBinding struct {
	// path is the bindings file used, or "".
	path string
	// lib holds the tools; options the injected values.
	lib     *runtime.Library
	options []runtime.Option
	// cassettes, baseURL, apiKey and keyVar are the runner's (see
	// agenttest.Runner).
	cassettes, baseURL, apiKey, keyVar string
	// missingKey says why the endpoint's key cannot be read, or is "".
	missingKey string
	// models are the model overrides, by agent name.
	models map[string]schema.Model
	// close closes the MCP sessions.
	close func()
}

// bindTest returns the binding of a test of the file at path whose agent
// is agent: the built-in tools under the project's bindings file. Close
// the binding when the run is done.
func bindTest(ctx context.Context, s *server, path string, agent *schema.Agent) (*testBinding, error) {
	tb := &testBinding{lib: runtime.Builtins(), close: func() {}}
	found, err := project.FindBindings(filepath.Dir(path))
	if err != nil {
		// A bindings file another user could have written is refused:
		// the test is not run without the bindings it may need.
		return nil, err
	}
	if found == "" {
		return tb, nil
	}
	b, f, _, err := project.LoadBindings(found, true, inputfile.DefaultLimit)
	if ue := (*project.UntrustedError)(nil); errors.As(err, &ue) {
		// An mcp.json file it names that another user could have
		// written, refused as the bindings file would be.
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v; see gramc check %s", found, err, found)
	}
	if missing := b.Missing(f, os.LookupEnv); len(missing) > 0 {
		return nil, errors.New(strings.Join(missing, "\n"))
	}
	tb.path, tb.cassettes, tb.baseURL = found, b.Cassettes, b.BaseURL
	tb.keyVar = b.APIKey.Env
	tb.apiKey, _ = b.APIKey.Get(os.LookupEnv)
	tb.missingKey = b.MissingKey(f, os.LookupEnv)
	for _, p := range b.Programs {
		if err := tb.lib.Register(runtime.ExecTool(p.Name, "cd "+shellQuote(b.Dir)+" && "+p.Command, 0)); err != nil {
			return nil, fmt.Errorf("%s: tool %s: %v", found, p.Name, strings.TrimPrefix(err.Error(), "runtime: "))
		}
	}
	if len(b.Injects) > 0 {
		injected := map[string]any{}
		for _, st := range b.Injects {
			v, _ := st.Value.Get(os.LookupEnv)
			injected[st.Name] = injectedValue(agent, st.Name, v)
		}
		tb.options = append(tb.options, runtime.WithInjected(injected))
	}
	for _, m := range b.Models {
		if tb.models == nil {
			tb.models = map[string]schema.Model{}
		}
		tb.models[m.Agent] = m.Model
	}
	var clients []*mcp.Client
	tb.close = func() {
		for i := len(clients) - 1; i >= 0; i-- {
			if err := clients[i].Close(); err != nil {
				s.log.Warn("closing the MCP session", "server", clients[i].Name(), "error", err)
			}
		}
	}
	for _, sv := range b.Servers {
		cfg := mcp.Config{Name: sv.Name, URL: sv.URL, Logger: s.log}
		if sv.Command != "" {
			cfg.Command = "cd " + shellQuote(b.Dir) + " && " + sv.Command
		}
		for _, e := range sv.Env {
			v, _ := e.Value.Get(os.LookupEnv)
			cfg.Env = append(cfg.Env, e.Name+"="+v)
		}
		if len(sv.Headers) > 0 {
			h := http.Header{}
			for _, e := range sv.Headers {
				v, _ := e.Value.Get(os.LookupEnv)
				h.Add(e.Name, v)
			}
			cfg.HTTPClient = &http.Client{Transport: headerTransport{h, http.DefaultTransport}}
		}
		c, err := mcp.Connect(ctx, cfg)
		if err != nil {
			tb.close()
			return nil, fmt.Errorf("%s: %v", found, err)
		}
		clients = append(clients, c)
		c.AddTo(tb.lib)
	}
	return tb, nil
}

// runner returns the runner of a test run once, as `gramc test` runs it:
// replaying its cassette when there is one.
func (tb *testBinding) runner(s *server) *agenttest.Runner {
	return &agenttest.Runner{Library: tb.lib, Repeat: 1, Parallel: 1,
		Cassettes: tb.cassettes, BaseURL: tb.baseURL, APIKey: tb.apiKey, KeyVar: tb.keyVar,
		Options: append([]runtime.Option{runtime.WithLogger(s.log)}, tb.options...)}
}

// keyError returns why test t of the file at path cannot run with r: it
// runs against the model, and the variable the bindings file names for the
// endpoint's key is not set or empty. Nil otherwise.
func (tb *testBinding) keyError(r *agenttest.Runner, path string, t *schema.Test) error {
	if tb.missingKey == "" || !r.Live(agenttest.Job{Path: path, Test: t}) {
		return nil
	}
	return errors.New(tb.missingKey)
}

// withModel returns t, or a copy of it whose agent has the model the
// bindings give it (the analysis's test and agent are shared: never
// modified).
func (tb *testBinding) withModel(t *schema.Test) *schema.Test {
	if t.Agent == nil {
		return t
	}
	m, ok := tb.models[t.Agent.Name]
	if !ok {
		return t
	}
	a, c := *t.Agent, *t
	m.Span = a.Model.Span
	a.Model = m
	c.Agent = &a
	return &c
}

// injectedValue returns the value of an injected parameter written as
// text: JSON when it is and no tool of the agent declares the parameter a
// String, else the text (as gramc's --inject).
func injectedValue(agent *schema.Agent, name, text string) any {
	if agent != nil {
		for _, t := range agent.Tools {
			for _, p := range t.Params {
				if p.Injected && p.Name == name && p.Type != nil && p.Type.Kind == schema.StringType {
					return text
				}
			}
		}
	}
	var x any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil || dec.More() {
		return text
	}
	return x
}

// headerTransport adds headers to every request.
type headerTransport struct {
	h    http.Header
	next http.RoundTripper
}

// RoundTrip sends r with the headers.
func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.h {
		r.Header[k] = vs
	}
	return t.next.RoundTrip(r)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
