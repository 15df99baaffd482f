// Code actions and commands.
//
// Quick fixes come from the diagnostics in the requested range: each
// suggested edit a diagnostic carries (did-you-mean for unknown properties,
// types, providers and references; the right arrow; a valid tool name; ...)
// becomes a quick fix, and the server adds its own for the problems whose fix
// needs the file's layout: adding a missing description, instruction or
// model, and removing an unused tool. On a tool, a source action runs the
// "show JSON Schema" command, which answers with the tool's schema.

package lsp

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/format"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/schema"
)

// CodeAction answers textDocument/codeAction.
func (s *server) CodeAction(ctx context.Context, an *analysis, p *protocol.CodeActionParams) ([]protocol.CodeAction, error) {
	span := spanOf(an.File, p.Range)
	// want reports whether the client asks for the kind k: it or a
	// kind k is a sub-kind of (quickfix.x of quickfix).
	want := func(k protocol.CodeActionKind) bool {
		return len(p.Context.Only) == 0 || slices.ContainsFunc(p.Context.Only, func(o protocol.CodeActionKind) bool {
			return k == o || strings.HasPrefix(string(k), string(o)+".")
		})
	}
	out := []protocol.CodeAction{}
	if want(protocol.QuickFix) {
		for _, d := range s.diagnosticsOf(an).InOrder(an.File) {
			if ds := an.File.Resolve(d.Span); ds.Start > span.End || ds.End < span.Start {
				continue
			}
			out = append(out, an.quickFixes(p.TextDocument.URI, d)...)
			out = append(out, an.subjectFixes(p.TextDocument.URI, d)...)
		}
	}
	if want(protocol.Source) {
		if t := an.ToolAt(span.Start); t != nil && t.Name != "" {
			out = append(out, protocol.CodeAction{
				Title: fmt.Sprintf("Show the JSON Schema of tool %s", t.Name),
				Kind:  protocol.Source,
				Command: &protocol.Command{
					Title:     "Show JSON Schema",
					Command:   CommandToolSchema,
					Arguments: []any{string(p.TextDocument.URI), t.Name},
				},
			})
		}
	}
	return out, nil
}

// quickFixes returns the quick fixes of a diagnostic.
func (a *analysis) quickFixes(u protocol.DocumentURI, d diag.Diagnostic) []protocol.CodeAction {
	var out []protocol.CodeAction
	ld := toLSPDiagnostic(a.File, u, d)
	fix := func(title string, edits []diag.Edit, preferred bool) {
		out = append(out, quickFix(title, ld, u, a.File, edits, preferred))
	}
	for _, f := range d.Fixes {
		fix(f.Title, f.Edits, len(d.Fixes) == 1)
	}
	if len(d.Fixes) > 0 {
		return out
	}
	if m, ok := missingProperties[d.Code]; ok {
		if e, ok := a.addProperty(d.Span, m.key, m.value); ok {
			fix(m.title, []diag.Edit{e}, true)
		}
	}
	if d.Code == schema.CodeUnusedTool {
		if dl := a.Index().NameDecl(d.Span); dl != nil && dl.Kind == ide.KindTool {
			fix("Remove the unused tool "+dl.Tool.Name, []diag.Edit{a.removal(dl.Tool.Span)}, false)
		}
	}
	return out
}

// quickFix returns the quick fix of the diagnostic ld titled title that
// makes edits (of positions) in the file f at u.
func quickFix(title string, ld protocol.Diagnostic, u protocol.DocumentURI, f *diag.File, edits []diag.Edit, preferred bool) protocol.CodeAction {
	tes := make([]protocol.TextEdit, 0, len(edits))
	for _, e := range edits {
		tes = append(tes, protocol.TextEdit{Range: rangeOf(f, e.Span), NewText: e.NewText})
	}
	return protocol.CodeAction{
		Title:       title,
		Kind:        protocol.QuickFix,
		Diagnostics: []protocol.Diagnostic{ld},
		IsPreferred: preferred,
		Edit:        &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{u: tes}},
	}
}

// missingProperties are the quick fixes of the diagnostics of a missing
// property, by code: their titles and the property they add.
var missingProperties = map[string]struct{ title, key, value string }{
	schema.CodeMissingDescription: {"Add a description", "description", `"What the tool does"`},
	schema.CodeMissingInstruction: {"Add an instruction", "instruction", `"You are a helpful assistant."`},
	schema.CodeMissingModel:       {"Add a model", "model", `"OpenAI/gpt-4o-mini"`},
}

// addProperty returns an edit adding key: value to the record of the
// declaration (an agent or a tool) named at name (the span a
// missing-property diagnostic is reported at), and whether there is one:
// the property is missing, not just empty.
func (a *analysis) addProperty(name diag.Span, key, value string) (diag.Edit, bool) {
	p := a.Index().DefPattern(name)
	if p == nil {
		return diag.Edit{}, false
	}
	sp, ok := p.Syntax().(*grammar.SubjectPattern)
	if !ok || sp.Subject == nil {
		return diag.Edit{}, false
	}
	s := sp.Subject
	entry := key + ": " + value
	r := s.Record
	if r == nil {
		at := s.Ident.End()
		if len(s.Labels) > 0 {
			at = s.LabelsSpan().End
		}
		return diag.Edit{Span: diag.Span{Start: at, End: at}, NewText: " {" + entry + "}"}, true
	}
	if slices.ContainsFunc(r.Entries, func(e grammar.Entry) bool { return e.KeyName() == key }) {
		return diag.Edit{}, false
	}
	if len(r.Entries) == 0 {
		at := r.Span().Start + 1
		return diag.Edit{Span: diag.Span{Start: at, End: at}, NewText: entry}, true
	}
	first := r.Entries[0].Key.Start()
	f := a.File
	if line := positionOf(f, first).Line; line != positionOf(f, r.Span().Start).Line {
		// One entry per line: add a line like the first entry's.
		indent := string(f.ByteRange(f.LineStart(int(line)), f.Offset(first)))
		return diag.Edit{Span: diag.Span{Start: first, End: first}, NewText: entry + "," + format.LineEnding(f.Bytes()) + indent}, true
	}
	return diag.Edit{Span: diag.Span{Start: first, End: first}, NewText: entry + ", "}, true
}

// removal returns an edit deleting a top-level pattern with its line, and
// one blank line after it.
func (a *analysis) removal(s diag.Span) diag.Edit {
	t := a.File.Bytes()
	s = a.File.Resolve(s)
	start, end := s.Start, s.End
	ls := len(bytes.TrimRight(t[:start], " \t"))
	if ls == 0 || t[ls-1] == '\n' {
		start = ls
	}
	// blanksFrom returns the end of the blanks from i.
	blanksFrom := func(i int) int { return len(t) - len(bytes.TrimLeft(t[i:], " \t\r")) }
	if e := blanksFrom(end); e < len(t) && t[e] == '\n' && start == ls {
		end = e + 1
		// And one blank line after it.
		if b := blanksFrom(end); b < len(t) && t[b] == '\n' {
			end = b + 1
		}
	}
	return diag.Edit{Span: posSpan(a.File, diag.Span{Start: start, End: end})}
}

// ExecuteCommand answers workspace/executeCommand. The tool schema command
// takes the document URI, then a position ({line, character}) or a tool or
// agent name, then optionally a format (jsonschema, openai or mcp) and
// strict (a boolean, OpenAI's strict mode); it answers with the tool's
// schema, with the array of an agent's tools' schemas when the position is
// on an agent outside its tools, or null when there is neither. The run
// test command is described at [CommandRunTest].
func (s *server) ExecuteCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (any, error) {
	if p.Command != CommandRunTest && p.Command != CommandToolSchema && p.Command != CommandShowToolSchema {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
	}
	if len(p.Arguments) < 2 {
		msg := "the command takes a document URI and a position or a tool name"
		if p.Command == CommandRunTest {
			msg = "gram.runTest takes a document URI and a test name"
		}
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, msg)
	}
	args := slices.Concat(p.Arguments, make([]any, 2)) // the optional ones nil when absent
	u, ok := args[0].(string)
	if !ok {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "the first argument is the document URI")
	}
	snap, err := s.snapshot(ctx, protocol.DocumentURI(u))
	if err != nil {
		return nil, err
	}
	if p.Command == CommandRunTest {
		return s.runTestCommand(ctx, snap, args[1])
	}
	t, ag, err := snap.Analysis().schemaTarget(args[1], u)
	if t == nil && ag == nil {
		return nil, err
	}
	f, _ := args[2].(string)
	f = cmp.Or(f, string(schema.FormatJSONSchema))
	strict, ok := args[3].(bool)
	if !ok && args[3] != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "the fourth argument, strict, is true or false")
	}
	tools := []*schema.Tool{t}
	if t == nil {
		tools = ag.Tools
	}
	out := schema.Emit(schema.Format(f), tools, strict)
	switch {
	case out == nil:
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown format %q: use jsonschema, openai or mcp", f)
	case t == nil:
		return out, nil
	}
	return out[0], nil
}

// schemaTarget returns the tool, or else the agent, whose schema the tool
// schema command of the document u shows: named by arg, or at the
// position arg ({line, character}), the agent when it is on one outside
// its tools; neither when there is none at the position, and an error
// when arg is neither or names neither.
func (a *analysis) schemaTarget(arg any, u string) (*schema.Tool, *schema.Agent, error) {
	switch arg := arg.(type) {
	case string:
		if ag := a.Prog.Agent(arg); ag != nil && a.Prog.Tool(arg) == nil {
			return nil, ag, nil
		}
		ts, err := a.Prog.SelectTools("", arg)
		if err != nil {
			return nil, nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v (nor an agent of that name)", err)
		}
		return ts[0], nil, nil
	case map[string]any:
		line, _ := arg["line"].(float64)
		char, _ := arg["character"].(float64)
		off := offsetOf(a.File, protocol.Position{Line: uint32(line), Character: uint32(char)})
		if t := a.ToolAt(off); t != nil {
			return t, nil, nil
		}
		for _, ag := range a.Prog.AllAgents() {
			if pos := a.File.Pos(off); ag.Span.Start <= pos && pos <= ag.Span.End {
				return nil, ag, nil
			}
		}
		return nil, nil, nil
	}
	return nil, nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "the second argument is a position or a tool name")
}
