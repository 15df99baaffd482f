package suggest

import (
	"fmt"
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
