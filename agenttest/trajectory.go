package agenttest

// Checking a turn's tool calls against the expected trajectory (exact,
// inOrder or anyOrder), and the diff of what was expected and what was
// called.

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/schema"
)

// checkTrajectory compares the expected calls with the actual ones.
func checkTrajectory(mode schema.Trajectory, want []*schema.CallExpectation, got []Call) (Failure, bool) {
	// match[i] is the actual call matched to expectation i, or -1: in any
	// order, distinct calls; exact and in order, the longest run of calls
	// that match in order, which exact needs to be all of them.
	var match []int
	if mode == schema.TrajectoryAnyOrder {
		match = bipartite(want, got)
	} else {
		match = align(want, got)
	}
	if !slices.Contains(match, -1) && (mode != schema.TrajectoryExact || len(got) == len(want)) {
		return Failure{}, true
	}
	return Failure{Kind: "trajectory", Message: trajectoryMessage(mode, want, got, match),
		Diff: trajectoryDiff(mode, want, got, match)}, false
}

// bipartite matches expectations to distinct calls (any order), maximising
// the number matched; it returns the call of each expectation or -1.
func bipartite(want []*schema.CallExpectation, got []Call) []int {
	owner := slices.Repeat([]int{-1}, len(got)) // expectation matched to each call
	ok := make([][]bool, len(want))
	for i := range want {
		ok[i] = make([]bool, len(got))
		for j := range got {
			ok[i][j] = matchCall(want[i], got[j]) == ""
		}
	}
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for j := range got {
			if ok[i][j] && !seen[j] {
				seen[j] = true
				if owner[j] < 0 || try(owner[j], seen) {
					owner[j] = i
					return true
				}
			}
		}
		return false
	}
	for i := range want {
		try(i, make([]bool, len(got)))
	}
	match := slices.Repeat([]int{-1}, len(want))
	for j, i := range owner {
		if i >= 0 {
			match[i] = j
		}
	}
	return match
}

// align matches expectations to calls in order, as many as possible (a
// longest common subsequence); it returns the call of each expectation or
// -1.
func align(want []*schema.CallExpectation, got []Call) []int {
	n, m := len(want), len(got)
	// l[i][j] is the longest alignment of want[i:] and got[j:].
	l := make([][]int, n+1)
	for i := range l {
		l[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			l[i][j] = max(l[i+1][j], l[i][j+1])
			if matchCall(want[i], got[j]) == "" {
				l[i][j] = max(l[i][j], l[i+1][j+1]+1)
			}
		}
	}
	match := make([]int, n)
	i, j := 0, 0
	for i < n {
		switch {
		case j < m && matchCall(want[i], got[j]) == "" && l[i][j] == l[i+1][j+1]+1:
			match[i] = j
			i++
			j++
		case j < m && l[i][j+1] >= l[i+1][j]:
			j++
		default:
			match[i] = -1
			i++
		}
	}
	return match
}

// trajectoryMessage says in one line why the trajectory does not match.
func trajectoryMessage(mode schema.Trajectory, want []*schema.CallExpectation, got []Call, match []int) string {
	missing := 0
	for _, m := range match {
		if m < 0 {
			missing++
		}
	}
	made := gramtext.Count(len(got), "tool call")
	switch {
	case missing > 0:
		return fmt.Sprintf("%d of %d expected tool calls not made (trajectory %s; the agent made %s)", missing, len(want), mode, made)
	case mode == schema.TrajectoryExact && len(got) > len(want):
		return fmt.Sprintf("the agent made %s, the test expects exactly %d (trajectory exact)", made, len(want))
	}
	return fmt.Sprintf("the tool calls differ from the expected ones (trajectory %s)", mode)
}

// trajectoryDiff lists the expected and actual calls: matched ones once,
// missing expectations with "-" and the reason the closest call of the
// same tool does not match, unmatched calls with "+".
func trajectoryDiff(mode schema.Trajectory, want []*schema.CallExpectation, got []Call, match []int) string {
	// Walk the actual calls in order, placing each expectation at its
	// matched call, and unmatched expectations where they were expected.
	type row struct {
		pos  float64
		text string
	}
	var rows []row
	for j, c := range got {
		mark := "+ "
		note := ""
		if slices.Contains(match, j) {
			mark = "  "
		} else if mode != schema.TrajectoryExact {
			note = "   (an extra call, allowed)"
		}
		text := fmt.Sprintf("%s%s%s", mark, c, note)
		if nested := nestedCalls(c, "      "); nested != "" {
			text += "\n" + nested
		}
		rows = append(rows, row{float64(j), text})
	}
	last := -1.0
	for i, w := range want {
		if match[i] >= 0 {
			last = float64(match[i])
			continue
		}
		reason := "not called"
		for j, c := range got {
			if c.Name == w.Tool {
				if why := matchCall(w, c); why != "" {
					reason = "closest call " + c.String() + ": " + why
				} else if mode == schema.TrajectoryAnyOrder {
					reason = fmt.Sprintf("call %d matches it, but another expectation has it", j+1)
				} else {
					reason = fmt.Sprintf("made as call %d, out of the expected order", j+1)
				}
				break
			}
		}
		pos := last + 0.5
		rows = append(rows, row{pos, fmt.Sprintf("- %s   (%s)", DescribeCall(w), reason)})
		last = pos
	}
	if len(rows) == 0 {
		return "  (no calls)"
	}
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].pos < rows[b].pos })
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = r.text
	}
	return strings.Join(lines, "\n")
}

// nestedCalls writes the calls of the nested run of a call of an agent,
// one a line after indent, each named with its agent, theirs indented
// further; "" when there are none.
func nestedCalls(c Call, indent string) string {
	var lines []string
	for _, n := range c.Calls {
		lines = append(lines, indent+c.Agent+": "+n.String())
		if more := nestedCalls(n, indent+"  "); more != "" {
			lines = append(lines, more)
		}
	}
	return strings.Join(lines, "\n")
}
