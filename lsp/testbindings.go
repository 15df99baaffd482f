// The project's bindings for a test run from the editor.
//
// gram.runTest binds the tools of a test as `gramc test` does with no
// flags: the built-in tools, then what the project's bindings file (the
// nearest bindings.gram, in the test file's directory or a parent up to the
// repository root, resolved by project.ResolveBindings as gramc resolves
// it, the library assembled by mcp.Assemble) gives: tools bound to
// programs (run in the bindings file's directory), MCP servers, injected
// values, the model endpoint and its API key, model overrides and the
// cassette directory. A bindings file with errors, or one that reads an
// environment variable that is not set, stops the run before any model
// call, with the reason (the endpoint's key only when the test runs against
// the model: a test with a cassette replays it without a key).

package lsp

import (
	"context"
	"errors"
	"fmt"
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

// testBinding is what a test run from the editor is bound to: the
// project's bindings (no file: zero), the library of tools, the options of
// the injected values.
type testBinding struct {
	project.ResolvedBindings
	lib     *runtime.Library
	options []runtime.Option
	// close closes the MCP sessions.
	close func()
}

// bindTest returns the binding of a test of the file at path whose agent
// is agent: the built-in tools under the project's bindings file. Close
// the binding when the run is done.
func bindTest(ctx context.Context, s *server, path string, agent *schema.Agent) (*testBinding, error) {
	r := project.ResolveBindings(project.BindingsRequest{From: []string{filepath.Dir(path)}, Limit: inputfile.DefaultLimit})
	if r.Err != nil {
		if ue := (*project.UntrustedError)(nil); r.Path == "" || errors.As(r.Err, &ue) {
			// A bindings file, or an mcp.json file it names, that another
			// user could have written is refused: the test is not run
			// without the bindings it may need.
			return nil, r.Err
		}
		return nil, fmt.Errorf("%s: %v; see gramc check %s", r.Path, r.Err, r.Path)
	}
	tb := &testBinding{ResolvedBindings: *r, lib: runtime.Builtins(), close: func() {}}
	if r.Bindings == nil {
		return tb, nil
	}
	if missing := r.Bindings.Missing(r.File, os.LookupEnv); len(missing) > 0 {
		return nil, errors.New(strings.Join(missing, "\n"))
	}
	if injected := project.InjectedValues([]*schema.Agent{agent}, r.Injects); injected != nil {
		tb.options = append(tb.options, runtime.WithInjected(injected))
	}
	a := mcp.Assembly{Logger: s.log}
	for _, p := range r.Programs {
		a.Programs = append(a.Programs, mcp.Program{Name: p.Name, Command: p.Command})
	}
	for _, sv := range r.Servers {
		a.Servers = append(a.Servers, mcp.Source(sv))
	}
	lib, closeTools, err := mcp.Assemble(ctx, a)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", r.Path, err)
	}
	tb.lib, tb.close = lib, closeTools
	return tb, nil
}

// runner returns the runner of a test run once, as `gramc test` runs it:
// replaying its cassette when there is one.
func (tb *testBinding) runner(s *server) *agenttest.Runner {
	r := &agenttest.Runner{Library: tb.lib, Repeat: 1, Parallel: 1,
		BaseURL: tb.BaseURL, APIKey: tb.APIKey, KeyVar: tb.KeyVar,
		Endpoints: runtime.Endpoints(tb.Endpoints),
		Fallbacks: tb.Fallbacks, Retries: tb.Retries, Prices: tb.Bindings.PriceTable(),
		Options: append([]runtime.Option{runtime.WithLogger(s.log), runtime.WithPrices(tb.Bindings.PriceTable())}, tb.options...)}
	if tb.Bindings != nil {
		r.Cassettes = tb.Bindings.Cassettes
	}
	return r
}

// keyError returns why test t of the file at path cannot run with r: it
// runs against the model, and the variable the bindings file names for the
// endpoint's key is not set or empty. Nil otherwise.
func (tb *testBinding) keyError(r *agenttest.Runner, path string, t *schema.Test) error {
	if tb.Bindings == nil {
		return nil
	}
	if m := tb.Bindings.MissingKey(tb.File, os.LookupEnv); m != "" && r.Live(agenttest.Job{Path: path, Test: t}) {
		return errors.New(m)
	}
	return nil
}
