// The agents, tools and records a test file names as property values.
//
// A test names its agent ({agent: NAME}), the tool of each call or
// no-call expectation ({tool: NAME}) and the record of a json answer
// check ({json: NAME}) as property values, bare or as strings, which are
// no identities of the index. Hover, definition,
// references and rename find them here: the value under the cursor, and
// the declaration it names, the text's own (a test file's own tools) or
// one of another file of its package (see pkgnames.go), else the one the
// compiler resolved it to (the subject file of a test file outside a
// package). The arguments a Call names (the keys of its args or
// argsInclude, its matcher nodes) are found here too, with the Call's
// tool.

package ide

import (
	"iter"
	"strconv"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// testValue is a test's agent, a call's tool or an answer's record as
// written.
type testValue struct {
	name string
	span diag.Span
	// kind is the kind of the package's tables the name is of: pkgAgents
	// for the agent of a test, pkgRecords for the record of a json answer
	// check, else pkgCalls.
	kind int
	// resolved is what the compiler resolved the name to, or zero.
	resolved pkgDecl
}

// testValues returns the agent and tool values of the text's tests, in
// source order.
func (a *Analysis) testValues() iter.Seq[testValue] {
	return func(yield func(testValue) bool) {
		for _, t := range a.Prog.Tests {
			if !yield(testValue{name: t.AgentName, span: t.AgentSpan, kind: pkgAgents, resolved: pkgDecl{agent: t.Agent}}) {
				return
			}
			for _, turn := range t.Turns {
				for _, c := range turn.Calls {
					if !yield(testValue{name: c.Tool, span: c.ToolSpan, kind: pkgCalls, resolved: pkgDecl{tool: c.ToolDecl}}) {
						return
					}
				}
				for _, n := range turn.NoCalls {
					if !yield(testValue{name: n.Tool, span: n.ToolSpan, kind: pkgCalls}) {
						return
					}
				}
				for _, d := range turn.Decisions {
					if !yield(testValue{name: d.Tool, span: d.ToolSpan, kind: pkgCalls}) {
						return
					}
				}
				for _, c := range turn.Answers {
					if c.Type != nil && c.Type.Record != nil && !yield(testValue{name: c.Type.Name, span: c.Type.Span, kind: pkgRecords, resolved: pkgDecl{record: c.Type.Record}}) {
						return
					}
				}
			}
		}
	}
}

// testValueAt returns the agent, tool or record value of a test of the
// text at the position off (its end included, as for identities).
func (a *Analysis) testValueAt(off int) (testValue, bool) {
	for v := range a.testValues() {
		if v.name != "" && v.span.Len() > 0 && v.span.Start <= off && off <= v.span.End {
			return v, true
		}
	}
	return testValue{}, false
}

// TestReferences returns the places where the text's tests name name as
// a property value, which are no identities of the index: the agent of a
// test, the tool of a call or a no-call expectation, the record of a json
// answer check, written bare or as a string.
func (a *Analysis) TestReferences(name string) []*Occurrence {
	var out []*Occurrence
	for v := range a.testValues() {
		if v.name != name || v.span.Len() == 0 {
			continue
		}
		text := string(a.File.Slice(v.span))
		if u, err := strconv.Unquote(text); err == nil && strings.HasPrefix(text, `"`) {
			text = u
		}
		if text == name {
			out = append(out, &Occurrence{Span: v.span, Name: name})
		}
	}
	return out
}

// argKey is an argument a test's Call names: a key of its args or
// argsInclude, or the (first name of the) identity of a matcher node.
type argKey struct {
	tool, name string
	span       diag.Span
}

// argKeys returns the arguments the text's tests' Calls name, with the
// tool of their Call, in source order.
func (a *Analysis) argKeys() iter.Seq[argKey] {
	return func(yield func(argKey) bool) {
		calls := map[diag.Span]string{}
		for _, t := range a.Prog.Tests {
			for _, turn := range t.Turns {
				for _, c := range turn.Calls {
					calls[c.Span] = c.Tool
				}
			}
		}
		if len(calls) == 0 {
			return
		}
		for _, top := range a.Doc.Lowered() {
			for _, e := range top.Elements {
				tool, ok := calls[e.Span()]
				if !ok {
					continue
				}
				for _, pr := range e.Subject.Properties {
					if _, ok := argsModes[pr.Key]; !ok {
						continue
					}
					for i := range pr.Value.Entries() {
						en := &pr.Value.Entries()[i]
						if !yield(argKey{tool: tool, name: en.KeyName(), span: en.Key.Span()}) {
							return
						}
					}
				}
				for _, f := range e.Elements {
					if f.Kind != parser.NodeKind || f.Subject.Identity == "" {
						continue
					}
					name, _, _ := strings.Cut(f.Subject.Identity, ".")
					s := f.IdentSpan()
					if !yield(argKey{tool: tool, name: name, span: diag.Span{Start: s.Start, End: s.Start + len(name)}}) {
						return
					}
				}
			}
		}
	}
}

// argsModes are the properties of a Call that list its arguments.
var argsModes = map[string]bool{"args": true, "argsInclude": true}

// argKeyAt returns the argument a Call of a test of the text names at the
// position off (its end included).
func (a *Analysis) argKeyAt(off int) (argKey, bool) {
	for k := range a.argKeys() {
		if k.span.Start <= off && off <= k.span.End {
			return k, true
		}
	}
	return argKey{}, false
}

// ArgReferences returns the places where the text's tests' Calls of tool
// name its argument name.
func (a *Analysis) ArgReferences(tool, name string) []*Occurrence {
	var out []*Occurrence
	for k := range a.argKeys() {
		if k.tool == tool && k.name == name {
			out = append(out, &Occurrence{Span: k.span, Name: name, Kind: KindParam})
		}
	}
	return out
}
