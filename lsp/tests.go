// Agent tests in the editor.
//
// A NAME_test.gram document is compiled with the agents, tools and records of
// NAME.gram beside it (read from disk), so its tests are checked as `gramc
// check` and `gramc test` check them; the quick fixes of their diagnostics
// (did-you-mean for agents, tools, arguments and labels, adding a tool to an
// agent) come with the diagnostics, and a test expecting a call of a tool
// that the agent of NAME.gram does not list gets a fix adding it there.
// Tests appear in the outline with their
// turns. Above each test a code lens runs it: the gram.runTest command runs
// the test with the built-in tools and the project's bindings (see
// testRunner), replaying its cassette when there is one (as `gramc test`
// does with no flags), answers with the result, and shows the
// outcome to the user (a failure with its diff).

package lsp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/agenttest"
	"github.com/gramlang/gram/binding"
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/clip"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/mcp"
	"github.com/gramlang/gram/schema"
)

// CommandRunTest runs a test of a document. Its arguments are the document
// URI and the test's name; it answers with the test's result (an
// agenttest.Result as JSON).
const CommandRunTest = "gram.runTest"

// testSymbol returns the outline entry of a test: its agent as detail, and
// its turns as children.
func (a *analysis) testSymbol(p *parser.Pattern) (protocol.DocumentSymbol, bool) {
	t := a.Prog.Test(p.Subject.Identity)
	if t == nil || t.Span != p.Span() {
		return protocol.DocumentSymbol{}, false
	}
	sym := a.symbol(t.Name, "test of "+cmp.Or(t.AgentName, "(unnamed)"), protocol.SymbolKindMethod, t.Span, t.NameSpan)
	for i, turn := range t.Turns {
		var parts []string
		for _, c := range turn.Calls {
			parts = append(parts, "calls "+c.Tool)
		}
		for _, n := range turn.NoCalls {
			parts = append(parts, "no "+n.Tool)
		}
		if len(turn.Answers) > 0 {
			parts = append(parts, fmt.Sprintf("%d answer checks", len(turn.Answers)))
		}
		if len(turn.Rubrics) > 0 {
			parts = append(parts, fmt.Sprintf("%d rubrics", len(turn.Rubrics)))
		}
		name := fmt.Sprintf("turn %d: %s", i+1, clip.Text(strings.Join(strings.Fields(turn.Input), " "), 60))
		sym.Children = append(sym.Children, a.symbol(name, strings.Join(parts, ", "), protocol.SymbolKindEvent, turn.Span, turn.Span))
	}
	return sym, true
}

// CodeLens answers textDocument/codeLens: "Run test" above every test.
func (s *server) CodeLens(ctx context.Context, an *analysis, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	out := []protocol.CodeLens{}
	for _, t := range an.Prog.Tests {
		if t.Name == "" {
			continue
		}
		out = append(out, protocol.CodeLens{
			Range: an.symbol(t.Name, "", 0, t.Span, t.NameSpan).SelectionRange,
			Command: &protocol.Command{
				Title:     "▶ Run test " + t.Name,
				Command:   CommandRunTest,
				Arguments: []any{string(p.TextDocument.URI), t.Name},
			},
		})
	}
	return out, nil
}

// runTestCommand runs gram.runTest on the document's snapshot snap; arg
// is the test's name.
func (s *server) runTestCommand(ctx context.Context, snap *snapshot, arg any) (any, error) {
	name, ok := arg.(string)
	if !ok {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "gram.runTest takes a document URI and a test name, as strings")
	}
	an := snap.Analysis()
	t := an.Prog.Test(name)
	if t == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "no test %q in %s", name, an.File.Path)
	}
	if an.Diags.HasErrors() {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s has errors: fix them before running test %s", an.File.Path, name)
	}
	// The agents the test may reach, as `gramc test` makes them: those of
	// the files of its package and its own (see agenttest.PackageProgram);
	// the document's alone when it is compiled alone.
	jobs := []agenttest.Job{{Path: an.File.Path, Test: t, Program: an.Prog}}
	if c := an.Checked; c != nil && c.Package != nil {
		jobs[0].Program = agenttest.PackageProgram(c.Package, c.Package.Lookup(an.File.Path))
	}
	r, closeTools, err := s.testRunner(ctx, jobs)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "test %s: %v", name, err)
	}
	defer closeTools()
	res := r.RunAll(ctx, jobs)[0]
	if s.conn != nil {
		msg := &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: fmt.Sprintf("Test %s passed (%s).", name, res.Source)}
		if res.Status != agenttest.Pass {
			msg.Type = protocol.MessageTypeWarning
			msg.Message = fmt.Sprintf("Test %s: %s (%s)\n%s", name, res.Status, res.Source, agenttest.Explain(res))
		}
		_ = s.conn.Notify(ctx, protocol.MethodWindowShowMessage, msg)
	}
	return res, nil
}

// testRunner returns the runner of the test of jobs, one, run once as
// `gramc test` runs it with no flags (see package binding): the built-in
// tools, then what the project's bindings file gives (the nearest
// bindings.gram, in the file's directory or a parent up to the repository
// root), replaying the test's cassette when there is one; it sets the
// job's test as the bindings give it. A bindings file with errors, or one
// that reads an environment variable that is not set, stops the run before
// any model call, with the reason (the endpoint's key only when the test
// runs against the model: a test with a cassette replays it without a key;
// see [agenttest.Runner.Start]). Call the returned function when the run
// is done.
func (s *server) testRunner(ctx context.Context, jobs []agenttest.Job) (*agenttest.Runner, func(), error) {
	set := binding.Resolve(binding.Options{Cmd: CommandRunTest, From: []string{filepath.Dir(jobs[0].Path)},
		MaxFileSize: inputfile.DefaultLimit, NoModel: true, // Start checks the key, if the test needs it
		ResultLimit: runtime.DefaultResultLimit, OutputRetries: runtime.DefaultOutputRetries, MCPTimeout: mcp.DefaultStartTimeout})
	if ue := (*project.UntrustedError)(nil); errors.As(set.Bound.Err, &ue) {
		return nil, nil, fmt.Errorf("%s: bindings: %s", CommandRunTest, ue.EditorText())
	}
	if _, err := set.Check(); err != nil {
		return nil, nil, err
	}
	r := &agenttest.Runner{Setup: set, Repeat: 1, Parallel: 1}
	closeTools, err := r.Start(ctx, jobs, s.log, func(missing string) error {
		return fmt.Errorf("%s: %s", CommandRunTest, missing)
	}, nil)
	return r, closeTools, err
}

// subjectFixes returns the quick fixes of a diagnostic that edit the agent
// file a _test.gram document tests: a tool a test expects, added to the
// agent's tools.
func (a *analysis) subjectFixes(u protocol.DocumentURI, d diag.Diagnostic) []protocol.CodeAction {
	if d.Code != schema.CodeToolNotAvailable {
		return nil
	}
	sp := schema.SubjectPath(a.File.Path)
	if sp == "" {
		return nil
	}
	for _, t := range a.Prog.Tests {
		if t.Agent == nil || a.Prog.Agent(t.Agent.Name) == t.Agent {
			continue // no agent, or one of this file (whose fix comes with the diagnostic)
		}
		for _, turn := range t.Turns {
			for _, c := range turn.Calls {
				if c.ToolSpan != d.Span {
					continue
				}
				b, err := inputfile.Read(sp, 0)
				if err != nil {
					return nil
				}
				edit, ok := t.Agent.AddToolEdit(c.Tool)
				f := diag.NewFile(sp, b)
				if !ok || edit.Span.End > f.Len() {
					return nil
				}
				title := fmt.Sprintf("Add %s to agent %s in %s", c.Tool, t.Agent.Name, filepath.Base(sp))
				return []protocol.CodeAction{quickFix(title, toLSPDiagnostic(a.File, u, d), pathURI(sp), f, []diag.Edit{edit}, false)}
			}
		}
	}
	return nil
}
