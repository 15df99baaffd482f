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
// package).

package ide

import (
	"iter"
	"strconv"
	"strings"

	"github.com/gramlang/gram/diag"
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
