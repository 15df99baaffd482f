package schema

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gramlang/gram/diag"
)

// describeTest writes a readable summary of a compiled test for the golden
// files: its agent, mode, and each turn's expectations with the text behind
// their spans.
func describeTest(b *bytes.Buffer, t *Test, text func(diag.Span) string) {
	agent := "<unresolved>"
	if t.Agent != nil {
		agent = t.Agent.Name
	}
	fmt.Fprintf(b, "test %s at %s: agent %s (%s), trajectory %s\n", t.Name, text(t.NameSpan), t.AgentName, agent, t.Trajectory)
	for i, turn := range t.Turns {
		fmt.Fprintf(b, "  turn %d: user says %q\n", i+1, turn.Input)
		for _, c := range turn.Calls {
			decl := "<not the agent's>"
			if c.ToolDecl != nil {
				decl = "declared"
			}
			mode := map[ArgsMode]string{ArgsAny: "any args", ArgsExact: "args", ArgsSubset: "argsInclude"}[c.Mode]
			args, _ := c.Args.MarshalJSON()
			by := ""
			if c.Agent != "" {
				by = " by agent " + c.Agent
			}
			fmt.Fprintf(b, "    call %s (%s)%s at %s, %s %s\n", c.Tool, decl, by, text(c.ToolSpan), mode, args)
			for _, m := range c.Fields {
				fmt.Fprintf(b, "      %s %s%s\n", m.Name(), m.Kind, describeMatcher(m))
			}
		}
		for _, n := range turn.NoCalls {
			fmt.Fprintf(b, "    no call of %s at %s\n", n.Tool, text(n.ToolSpan))
		}
		for _, a := range turn.Answers {
			fmt.Fprintf(b, "    answer %s %q at %s\n", a.Kind, a.Text, text(a.Span))
			if m := a.Field; m != nil {
				fmt.Fprintf(b, "      %s %s%s\n", m.Name(), m.Kind, describeMatcher(m))
			}
		}
		for _, h := range turn.Handoffs {
			fmt.Fprintf(b, "    handoff to %s at %s\n", h.To, text(h.ToSpan))
		}
		for _, r := range turn.Rubrics {
			fmt.Fprintf(b, "    rubric by %s, threshold %g: %q\n", r.JudgeName, r.Threshold, r.Criterion)
		}
		for _, d := range turn.Decisions {
			fmt.Fprintf(b, "    decision on %s at %s: approve %v, reason %q\n", d.Tool, text(d.ToolSpan), d.Approve, d.Reason)
		}
	}
}

func describeMatcher(m *FieldMatcher) string {
	var parts []string
	if m.Type != nil {
		parts = append(parts, "type "+m.Type.String())
	}
	switch m.Kind {
	case MatchEquals:
		v, _ := MarshalIndent(m.Value)
		parts = append(parts, "value "+strings.TrimSpace(string(v)))
	case MatchRegex:
		parts = append(parts, "regex "+m.Regex.String())
	case MatchRange:
		lo, hi := "open", "open"
		if m.Min != nil {
			lo = fmt.Sprint(*m.Min)
		}
		if m.Max != nil {
			hi = fmt.Sprint(*m.Max)
		}
		parts = append(parts, "from "+lo+" to "+hi)
	case MatchFormat:
		parts = append(parts, "format "+m.Format)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// writeFixes lists the fixes of the diagnostics, each edit with the text it
// replaces, so the golden files of tests show what a quick fix does.
func writeFixes(b *bytes.Buffer, f *diag.File, diags diag.List) {
	b.WriteString("-- fixes --\n")
	for _, d := range diags {
		for _, fx := range d.Fixes {
			fmt.Fprintf(b, "%s at %s: %s\n", d.Code, f.OffsetPosition(d.Span.Start), fx.Title)
			for _, e := range fx.Edits {
				fmt.Fprintf(b, "  at %s replace %q with %q\n", f.OffsetPosition(e.Span.Start), string(f.Bytes()[e.Span.Start:e.Span.End]), e.NewText)
			}
		}
	}
}

// String names the matcher kind as written: "equals", "any", "matches",
// "range", "format", "absent".
func (k MatcherKind) String() string { return matcherProps[k] }

// String names the check as written: "contains", "matches", "equals",
// "json", "field".
func (k AnswerKind) String() string { return answerKinds[k] }
