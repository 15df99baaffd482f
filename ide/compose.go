// Agents composed: an agent listed among another's elements, which the
// calling model sees as a tool, and the Handoff relationships that let an
// agent pass the conversation on (see handoff.go for how their names are
// read).
//
//   - completion offers, in an agent's element list, the agents of the
//     text and of its package beside the tools (never the agent itself,
//     nor an agent that calls it, which would make a cycle),
//     each with the signature its callers see; in the node a Handoff leads
//     to (or, with a left arrow, comes from), the other agents;
//   - hover over an agent listed as an element shows what the calling
//     model sees ([AgentToolDoc]): the tool's name, description, the JSON
//     Schema of its arguments and that of the agent's answer; over a
//     Handoff, the tool the model calls to hand off (see handoff.go).

package ide

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// agentItems completes the agents whose names start with word, other than
// those skip holds and those the agent caller is called by, directly or
// through other agents (listing one would make a cycle; caller "" for
// none): the text's, then those of the other files of its package, each
// with the signature its callers see.
func (a *Analysis) agentItems(skip map[string]bool, caller, word string) ([]Completion, bool) {
	var out []Completion
	// The caller is the text's. One that does not compile (its list ends
	// in a comma being typed, say) is left out of the tools of the agents
	// that list it.
	_, compiled := a.names.agents.table().first(caller)
	more := a.offered(pkgAgents, word, false, func(d pkgDecl, _ bool) {
		ag := d.agent
		if skip[ag.Name] || caller != "" && a.calls(d, caller, compiled, map[string]bool{}) {
			return
		}
		detail := "agent " + Signature(ag.AsTool)
		if d.file != nil {
			detail = d.where() + ": " + detail
		}
		out = append(out, Completion{Label: ag.Name, Kind: "agent", Detail: detail, Doc: ag.Description, Insert: parser.GramIdent(d.name)})
	})
	return out, more
}

// calls reports whether the agent of d calls the agent called name as a
// tool, directly or through the agents it calls, in the text and its
// package; seen holds the agents looked at already. Unless compiled, name
// is no agent of the compiled programs, and an agent's listing of it is
// read from the agent's text.
func (a *Analysis) calls(d pkgDecl, name string, compiled bool, seen map[string]bool) bool {
	ag := d.agent
	if seen[ag.Name] {
		return false
	}
	seen[ag.Name] = true
	if !compiled && d.lists(a.File, name) {
		return true
	}
	for _, t := range ag.Tools {
		if t.Agent == "" || t.Agent == ag.Name {
			continue
		}
		if t.Agent == name {
			return true
		}
		if next, ok := a.lookup(pkgAgents, t.Agent); ok && a.calls(next, name, compiled, seen) {
			return true
		}
	}
	return false
}

// lists reports whether the agent of d writes name among its
// elements, read from the tokens of its pattern in its file (own, that of
// the text's declarations).
func (d pkgDecl) lists(own *diag.File, name string) bool {
	f := own
	if d.file != nil {
		f = d.file.File
	}
	start, end := f.Offset(d.agent.Span.Start), f.Offset(d.agent.Span.End)
	c := &cursor{}
	var agent *frame
	grammar.InspectTokensIn(string(f.ByteRange(start, end)), start, func(t grammar.Tok) bool {
		c.feed(&t, false)
		if agent == nil {
			agent = c.top()
		}
		return true
	})
	return agent != nil && slices.Contains(agent.elems, name)
}

// AgentToolDoc describes, in Markdown, an agent listed among another
// agent's elements as the calling model sees it: a tool named after the
// agent, with its description, signature and the JSON Schema of its
// arguments, whose result is the agent's answer (with the JSON Schema of
// its type when the agent's signature gives one).
func AgentToolDoc(ag *schema.Agent) string {
	t := ag.AsTool
	var b strings.Builder
	fmt.Fprintf(&b, "**agent** `%s` as a tool: the calling model calls `%s`, and the agent runs with its own model, instruction and tools; its answer is the result.\n\n", ag.Name, t.Name)
	b.WriteString(strings.TrimPrefix(ToolDoc(t), "**tool** `"+t.Name+"`\n\n"))
	if res := ag.Result(); res != nil {
		if data, err := schema.MarshalIndent(schema.OutputSchema(t)); err == nil {
			fmt.Fprintf(&b, "\n\nJSON Schema of the answer (`%s`):\n\n```json\n%s\n```", TypeText(res), strings.TrimRight(string(data), "\n"))
		}
	} else {
		b.WriteString("\n\nThe answer is text.")
	}
	return b.String()
}
