package suggest

import (
	"fmt"
	"slices"
	"strings"
)

// Available lists names for an error message about the unknown name asked
// for, of the kind what ("agents"): "the agents are: a, b", and "; did you
// mean "a"?" when one of them is close to it (see [Closest]); "there are
// no agents" when there are none.
func Available(what, asked string, names []string) string {
	if len(names) == 0 {
		return "there are no " + what
	}
	list := "the " + what + " are: " + strings.Join(names, ", ")
	if s := Closest(asked, names); s != "" {
		list += fmt.Sprintf("; did you mean %q?", s)
	}
	return list
}

// ClosestOrSwapped returns the candidate closest to s (see [Closest]), or
// the one s is with two neighbouring letters swapped ("chekc" for check),
// or "".
func ClosestOrSwapped(s string, candidates []string) string {
	if c := Closest(s, candidates); c != "" {
		return c
	}
	b := []byte(s)
	for i := 0; i+1 < len(b); i++ {
		b[i], b[i+1] = b[i+1], b[i]
		if slices.Contains(candidates, string(b)) {
			return string(b)
		}
		b[i], b[i+1] = b[i+1], b[i]
	}
	return ""
}
