// Checking a turn: the agent's tool calls against the expected trajectory,
// the calls it must not make, and its answer; failures carry a diff of
// what was expected and what happened.

package agenttest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// Failure is one expectation a run did not meet.
type Failure struct {
	// Turn is the turn's number, from 1 (0 for the whole run).
	Turn int `json:"turn"`
	// Kind is "trajectory", "no-call", "answer", "handoff", "rubric",
	// "approval", "status" or "error".
	Kind string `json:"kind"`
	// Message says what failed in one line.
	Message string `json:"message"`
	// Diff shows the expected against the actual, line by line: "  " for
	// lines both have, "- " for the expected only, "+ " for the actual
	// only.
	Diff string `json:"diff,omitempty"`
}

// Call is a tool call the agent made, as checked.
type Call struct {
	Name string `json:"name"`
	// Args are the arguments the model sent, decoded (numbers are
	// json.Number); nil when they were not a JSON object.
	Args map[string]any `json:"args"`
	// Raw is the arguments as sent.
	Raw string `json:"-"`
	// Agent is the agent a call of a tool that runs an agent ran, and
	// Calls the calls of that nested run, in order, theirs nested in turn.
	Agent string `json:"agent,omitempty"`
	Calls []Call `json:"calls,omitempty"`
}

// String writes the call as `name {"arg":1}`.
func (c Call) String() string {
	if c.Args == nil {
		return c.Name + " " + strings.TrimSpace(c.Raw)
	}
	return c.Name + " " + compactJSON(c.Args)
}

// callsOf returns the calls of a turn's response.
func callsOf(resp *runtime.Response) []Call {
	out := make([]Call, 0, len(resp.ToolsUsed))
	for _, u := range resp.ToolsUsed {
		out = append(out, callOf(u))
	}
	return out
}

// callOf returns a tool use as checked, with the calls of its nested run.
func callOf(u runtime.ToolUse) Call {
	c := Call{Name: u.Name, Raw: u.RawArguments}
	if strings.TrimSpace(u.RawArguments) == "" {
		c.Args = map[string]any{}
	} else if v, err := jsonvalue.Decode([]byte(u.RawArguments)); err == nil {
		c.Args, _ = v.(map[string]any)
	}
	if u.Run != nil {
		c.Agent, c.Calls = u.Name, callsOf(u.Run)
	}
	return c
}

// compactJSON writes a value as compact JSON with sorted keys and no HTML
// escaping.
func compactJSON(v any) string { return jsonvalue.Compact(schema.ToAny(v)) }

// Evaluate checks the response of one turn (number n, from 1) against the
// turn's expectations and the test's trajectory mode. Rubrics are not
// checked here (they need a judge; see [Runner]).
func Evaluate(t *schema.Test, n int, turn *schema.Turn, resp *runtime.Response) []Failure {
	var out []Failure
	if resp == nil {
		return []Failure{{Turn: n, Kind: "error", Message: "the turn gave no response"}}
	}
	if want := runtime.Status(cmp.Or(turn.Status, string(runtime.StatusCompleted))); resp.Status != want {
		msg := "the agent did not finish the turn: " + string(resp.Status)
		if want != runtime.StatusCompleted {
			msg = fmt.Sprintf("the turn ended with status %s, but the test expects %s", resp.Status, want)
		}
		if resp.Error != "" {
			msg += ": " + resp.Error
		}
		if resp.Spent != nil && resp.Status == runtime.StatusBudgetExceeded {
			msg += ": " + runtime.BudgetMessage(resp.Spent)
		}
		out = append(out, Failure{Kind: "status", Message: msg})
	}
	tree := treeOf(resp, t.AgentName)
	out = append(out, checkAgentTrajectories(t, turn, tree)...)
	calls := callsOf(resp) // the turn's: the agent's, and after a handoff the agent handed to's
	for _, nc := range turn.NoCalls {
		var made []string
		for i, c := range calls {
			if c.Name == nc.Tool {
				made = append(made, fmt.Sprintf("+ %d. %s", i+1, c))
			}
		}
		if len(made) > 0 {
			out = append(out, Failure{Kind: "no-call",
				Message: fmt.Sprintf("%s was called %s, but the test expects no call of it", nc.Tool, times(len(made))),
				Diff:    strings.Join(made, "\n")})
		}
	}
	for _, a := range turn.Answers {
		if f, ok := checkTurnAnswer(a, resp); !ok {
			out = append(out, f)
		}
	}
	for _, h := range turn.Handoffs {
		if f, ok := checkHandoff(h, resp, tree); !ok {
			out = append(out, f)
		}
	}
	for i := range out {
		out[i].Turn = n
	}
	return out
}

// times returns "once", "twice", "3 times".
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return strconv.Itoa(n) + " times"
}

// DescribeCall writes an expected call as it reads in a diff:
// `sayHello {"personName":"Bob"}`, `getOrder {orderId: range 1..5}`.
func DescribeCall(w *schema.CallExpectation) string {
	var parts []string
	switch w.Mode {
	case schema.ArgsExact:
		parts = append(parts, compactJSON(w.Args))
	case schema.ArgsSubset:
		parts = append(parts, "including "+compactJSON(w.Args))
	}
	for _, m := range w.Fields {
		parts = append(parts, m.Name()+" "+describeMatcher(m))
	}
	if len(parts) == 0 {
		return w.Tool + " (any arguments)"
	}
	return w.Tool + " " + strings.Join(parts, ", ")
}

// describeMatcher writes a matcher: `equals "Bob"`, `matches ^B`,
// `in 1..5`, `is an email`, `is sent`, `is not sent`.
func describeMatcher(m *schema.FieldMatcher) string {
	switch m.Kind {
	case schema.MatchAny:
		return "is sent"
	case schema.MatchAbsent:
		return "is not sent"
	case schema.MatchRegex:
		return "matches " + m.Regex.String()
	case schema.MatchRange:
		return "in " + rangeText(m)
	case schema.MatchFormat:
		return "is a " + m.Format
	}
	return "equals " + compactJSON(m.Value)
}

// rangeText writes a range matcher's bounds as gram does: 1..5, 5..., ...5.
func rangeText(m *schema.FieldMatcher) string {
	f := func(p *float64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	switch {
	case m.Min == nil:
		return "..." + f(m.Max)
	case m.Max == nil:
		return f(m.Min) + "..."
	}
	return f(m.Min) + ".." + f(m.Max)
}

// matchCall returns "" when c meets the expectation, else why not.
func matchCall(w *schema.CallExpectation, c Call) string {
	if c.Name != w.Tool {
		return "another tool"
	}
	if c.Args == nil {
		if w.Mode == schema.ArgsAny && len(w.Fields) == 0 {
			return ""
		}
		return "its arguments are not a JSON object"
	}
	if w.Mode != schema.ArgsAny {
		// An expected argument is an equals matcher of its name.
		for _, m := range w.Args {
			eq := &schema.FieldMatcher{Path: []string{m.Key}, Kind: schema.MatchEquals, Value: m.Value}
			if why := matchValue(eq, c.Args, "is not sent"); why != "" {
				return why
			}
		}
	}
	if w.Mode == schema.ArgsExact {
		// The arguments sent that neither Args nor a field matcher names.
		var extra []string
		for k := range c.Args {
			named := func(m *schema.FieldMatcher) bool { return m.Path[0] == k }
			if _, ok := w.Args.Get(k); !ok && !slices.ContainsFunc(w.Fields, named) {
				extra = append(extra, k)
			}
		}
		if len(extra) > 0 {
			slices.Sort(extra)
			return "it also sends " + strings.Join(extra, ", ")
		}
	}
	for _, m := range w.Fields {
		if why := matchValue(m, c.Args, "is not sent"); why != "" {
			return why
		}
	}
	return ""
}

// lookupPath returns the value at a path in root, and whether there is one.
func lookupPath(root any, path []string) (any, bool) {
	cur := root
	for _, seg := range path {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[seg]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// matchValue returns "" when the value at the matcher's path in root (as
// jsonvalue decodes it: numbers are json.Number) meets it, else why not;
// missing says that there is no value at the path.
func matchValue(m *schema.FieldMatcher, root any, missing string) string {
	name := m.Name()
	v, ok := lookupPath(root, m.Path)
	if m.Kind == schema.MatchAbsent {
		if ok && v != nil {
			return fmt.Sprintf("%s is sent (%s), the test expects it not to be", name, compactJSON(v))
		}
		return ""
	}
	if !ok {
		return name + " " + missing
	}
	switch m.Kind {
	case schema.MatchAny:
		return ""
	case schema.MatchEquals:
		if !runtime.JSONEqual(schema.ToAny(m.Value), v) {
			return fmt.Sprintf("%s is %s, not %s", name, compactJSON(v), compactJSON(m.Value))
		}
	case schema.MatchRegex:
		s, isStr := v.(string)
		if !isStr {
			return fmt.Sprintf("%s is %s, not a string matching %s", name, compactJSON(v), m.Regex)
		}
		if !m.Regex.MatchString(s) {
			return fmt.Sprintf("%s is %s, which does not match %s", name, compactJSON(v), m.Regex)
		}
	case schema.MatchRange:
		n, isNum := v.(json.Number)
		f, err := n.Float64()
		if !isNum || err != nil {
			return fmt.Sprintf("%s is %s, not a number in %s", name, compactJSON(v), rangeText(m))
		}
		if m.Min != nil && f < *m.Min || m.Max != nil && f > *m.Max {
			return fmt.Sprintf("%s is %s, not in %s", name, compactJSON(v), rangeText(m))
		}
	case schema.MatchFormat:
		s, isStr := v.(string)
		if !isStr || !HasFormat(m.Format, s) {
			return fmt.Sprintf("%s is %s, not a valid %s", name, compactJSON(v), m.Format)
		}
	}
	return ""
}
