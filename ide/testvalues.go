// The names a test file writes as property values and arguments.
//
// A test names its agent ({agent: NAME}), the tool of each call or
// no-call expectation ({tool: NAME}) and the record of a json answer
// check ({json: NAME}) as property values, bare or as strings, and a
// Call names arguments of its tool (the keys of its args or argsInclude,
// its matcher nodes): none of them are identities of the index. Hover,
// definition, references and rename find them here: the value under the
// cursor, and the declaration it names, the text's own (a test file's own
// tools) or one of another file of its package (see pkgnames.go), else
// the one the compiler resolved it to (the subject file of a test file
// outside a package); an argument with the Call's tool.

package ide

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// testValue is a test's agent, a call's tool, an answer's record or an
// argument of a Call as written.
type testValue struct {
	name string
	span diag.Span
	// kind is what the name names: KindAgent, KindTool, KindRecord, or
	// KindParam for an argument of the Call of tool.
	kind Kind
	tool string
	// resolved is what the compiler resolved the name to, or zero.
	resolved pkgDecl
}

// valueTables are the kinds of the package's tables the agent, tool and
// record values name declarations of: any tool, inline ones too, as a
// call may expect.
var valueTables = map[Kind]int{KindAgent: pkgAgents, KindTool: pkgCalls, KindRecord: pkgRecords}

// testValues returns the names the text's tests write as values and
// arguments, in source order.
func (a *Analysis) testValues() []testValue {
	var out []testValue
	for _, t := range a.Prog.Tests {
		out = append(out, testValue{name: t.AgentName, span: t.AgentSpan, kind: KindAgent, resolved: pkgDecl{agent: t.Agent}})
		for _, turn := range t.Turns {
			for _, c := range turn.Calls {
				out = append(out, testValue{name: c.Tool, span: c.ToolSpan, kind: KindTool, resolved: pkgDecl{tool: c.ToolDecl}})
				out = a.appendArgs(out, c)
			}
			for _, n := range turn.NoCalls {
				out = append(out, testValue{name: n.Tool, span: n.ToolSpan, kind: KindTool})
			}
			for _, d := range turn.Decisions {
				out = append(out, testValue{name: d.Tool, span: d.ToolSpan, kind: KindTool})
			}
			for _, c := range turn.Answers {
				if c.Type != nil && c.Type.Record != nil {
					out = append(out, testValue{name: c.Type.Name, span: c.Type.Span, kind: KindRecord, resolved: pkgDecl{record: c.Type.Record}})
				}
			}
		}
	}
	return out
}

// appendArgs appends to out the arguments the Call c names: the keys of
// its args or argsInclude, and the first names of the identities of its
// matcher nodes.
func (a *Analysis) appendArgs(out []testValue, c *schema.CallExpectation) []testValue {
	top := a.loweredAt(c.Span.Start)
	if top == nil {
		return out
	}
	i := slices.IndexFunc(top.Elements, func(e *parser.Pattern) bool { return e.Span() == c.Span })
	if i < 0 {
		return out
	}
	e := top.Elements[i]
	for _, pr := range e.Subject.Properties {
		if pr.Key != "args" && pr.Key != "argsInclude" {
			continue
		}
		for j := range pr.Value.Entries() {
			en := &pr.Value.Entries()[j]
			out = append(out, testValue{name: en.KeyName(), span: en.Key.Span(), kind: KindParam, tool: c.Tool})
		}
	}
	for _, f := range e.Elements {
		if f.Kind == parser.NodeKind && f.Subject.Identity != "" {
			name, _, _ := strings.Cut(f.Subject.Identity, ".")
			s := f.IdentSpan()
			out = append(out, testValue{name: name, span: diag.Span{Start: s.Start, End: s.Start + len(name)}, kind: KindParam, tool: c.Tool})
		}
	}
	return out
}

// testValueAt returns the value or argument a test of the text writes at
// the position off (its end included, as for identities).
func (a *Analysis) testValueAt(off int) (testValue, bool) {
	for _, v := range a.testValues() {
		if v.name != "" && v.span.Len() > 0 && v.span.Start <= off && off <= v.span.End {
			return v, true
		}
	}
	return testValue{}, false
}

// testReferences returns the places where the text's tests write name:
// as a property value (tool "": the agent of a test, the tool of a call or
// a no-call expectation, the record of a json answer check, bare or as a
// string), or as an argument of their Calls of tool.
func (a *Analysis) testReferences(tool, name string) []*Occurrence {
	var out []*Occurrence
	for _, v := range a.testValues() {
		if v.tool != tool || v.name != name || v.span.Len() == 0 {
			continue
		}
		text := string(a.File.Slice(v.span))
		if u, err := strconv.Unquote(text); err == nil && strings.HasPrefix(text, `"`) {
			text = u
		}
		// An argument's span is that of its name.
		if text == name || tool != "" {
			out = append(out, &Occurrence{Span: v.span, Name: name, Kind: v.kind})
		}
	}
	return out
}
