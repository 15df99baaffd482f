// Token counts in the editor: what each tool's and each agent's
// definitions add to a request of its model (schema.Cost, package tokens),
// as a short label after its name and a breakdown in its hover. A tool is
// counted for the model of the first agent of the file that lists it, or
// for OpenAI's gpt-4o when none does.

package ide

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/schema"
	"github.com/gramlang/gram/tokens"
)

// TokenCount is the tokens of one tool's or agent's definitions.
type TokenCount struct {
	// Span is the tool's or agent's name, in byte offsets of the text.
	Span diag.Span
	// Label is the count for an inlay hint: "45 tokens", "~45 tokens" for
	// an estimate; an agent's adds its tools' share.
	Label string
	// Markdown is the breakdown a hover shows.
	Markdown string
}

// defaultModel counts a tool no agent of the file lists.
var defaultModel = schema.Model{Provider: schema.OpenAI, ID: "gpt-4o"}

// TokenCounts returns the counts of the tools and agents whose name ends
// in span (of byte offsets), in the order of the program, tools first:
// what an editor shows of a range.
func (a *Analysis) TokenCounts(span diag.Span) []TokenCount {
	in := func(name diag.Span) bool {
		end := a.File.Offset(name.End)
		return end >= span.Start && end <= span.End
	}
	var out []TokenCount
	for i := range a.Prog.NumTools() {
		if t := a.Prog.ToolAt(i); in(t.NameSpan) {
			out = append(out, a.toolCount(t))
		}
	}
	for i := range a.Prog.NumAgents() {
		if ag := a.Prog.AgentAt(i); in(ag.NameSpan) {
			out = append(out, a.agentCount(ag))
		}
	}
	return out
}

// modelOf returns the model a tool is counted for: that of the first
// agent that lists it and names one, found among the agents that list a
// tool of its name (see toolUsers).
func (a *Analysis) modelOf(t *schema.Tool) schema.Model {
	u := a.toolUsers()
	first := -1
	check := func(i int) {
		if first >= 0 && i > first {
			return
		}
		if ag := a.Prog.AgentAt(i); ag.Model.Provider != "" && slices.Contains(ag.Tools, t) {
			first = i
		}
	}
	for _, i := range u.byName[t.Name] {
		if !u.changed[i] {
			check(int(i))
		}
	}
	for i := range u.changed {
		check(int(i))
	}
	if first < 0 {
		return defaultModel
	}
	return a.Prog.AgentAt(first).Model
}

// toolUsers are the places of the agents that list each tool, by the
// tool's name, in an earlier version of the program with as many agents
// (byName, in order), and the places of the agents changed since (see
// [schema.Program.ChangedAgents]): an agent that lists a tool now is
// under its name, or changed. A version takes the one before's, with the
// agents the edit changed, so that what the first count after an edit
// costs does not grow with the file.
type toolUsers struct {
	byName  map[string][]int32
	changed map[int32]bool
}

// maxChanged is how many agents toolUsers may know as changed before it
// is made again.
const maxChanged = 64

// toolUsers returns the agents that list each tool, made on first use.
func (a *Analysis) toolUsers() *toolUsers {
	if u := a.users.Load(); u != nil {
		return u
	}
	u := &toolUsers{byName: map[string][]int32{}}
	for i, ag := range a.Prog.AllAgents() {
		for _, t := range ag.Tools {
			if at := u.byName[t.Name]; len(at) == 0 || at[len(at)-1] != int32(i) {
				u.byName[t.Name] = append(at, int32(i))
			}
		}
	}
	a.users.CompareAndSwap(nil, u)
	return a.users.Load()
}

// nextUsers returns the toolUsers of prog, a later version of prev's
// program, from prev's when it knows them: nil when it does not, when the
// number of agents changed, or when too many have.
func nextUsers(prev *Analysis, prog *schema.Program) *toolUsers {
	u := prev.users.Load()
	if u == nil || prog.NumAgents() != prev.Prog.NumAgents() {
		return nil
	}
	next := &toolUsers{byName: u.byName, changed: maps.Clone(u.changed)}
	for i := range prog.ChangedAgents(prev.Prog) {
		if next.changed == nil {
			next.changed = map[int32]bool{}
		}
		next.changed[int32(i)] = true
		if len(next.changed) > maxChanged {
			return nil
		}
	}
	return next
}

// toolCount counts one tool.
func (a *Analysis) toolCount(t *schema.Tool) TokenCount {
	m := a.modelOf(t)
	c, tg := schema.CounterFor(m)
	cost := schema.ToolCost(c, tg, t)
	var b strings.Builder
	fmt.Fprintf(&b, "**Tokens**: %s in each request to %s (%s)\n\n", count(cost.Tokens, c), m, c.How())
	fmt.Fprintf(&b, "- description: %s\n", count(cost.Description, c))
	for _, p := range cost.Params {
		fmt.Fprintf(&b, "- `%s`: %s\n", p.Name, count(p.Tokens, c))
	}
	return TokenCount{Span: a.File.Resolve(t.NameSpan), Label: count(cost.Tokens, c), Markdown: b.String()}
}

// agentCount counts one agent.
func (a *Analysis) agentCount(ag *schema.Agent) TokenCount {
	m := ag.Model
	if m.Provider == "" {
		m = defaultModel
	}
	c, tg := schema.CounterFor(m)
	cost := schema.Cost(c, tg, ag)
	var b strings.Builder
	fmt.Fprintf(&b, "**Tokens**: %s in each request to %s (%s)\n\n", count(cost.Total, c), m, c.How())
	fmt.Fprintf(&b, "- instruction: %s\n- tools: %s\n", count(cost.Instruction, c), count(cost.Tools, c))
	for _, t := range cost.ToolCosts {
		fmt.Fprintf(&b, "  - `%s`: %s\n", t.Name, count(t.Tokens, c))
	}
	if n := ag.Settings.MaxToolTokens; n > 0 {
		fmt.Fprintf(&b, "\nmaxToolTokens: %d\n", n)
	}
	label := fmt.Sprintf("%s (tools %d)", count(cost.Total, c), cost.Tools)
	return TokenCount{Span: a.File.Resolve(ag.NameSpan), Label: label, Markdown: b.String()}
}

// count writes n tokens, "~" before an estimate.
func count(n int, c *tokens.Counter) string {
	if c.Estimate {
		return fmt.Sprintf("~%d tokens", n)
	}
	return fmt.Sprintf("%d tokens", n)
}
