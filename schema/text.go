// Text helpers: dedenting fenced strings.

package schema

import "strings"

// Dedent returns the text of a fenced string as the agent language reads it:
// line ends normalized to "\n", leading and trailing blank lines dropped,
// the indentation common to all non-blank lines removed, and lines of only
// white space made empty (inner blank lines are kept).
func Dedent(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	blank := func(l string) bool { return strings.TrimLeft(l, " \t") == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	prefix, first := "", true
	for _, l := range lines {
		if blank(l) {
			continue
		}
		ind := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ind, false
			continue
		}
		n := 0
		for n < len(prefix) && n < len(ind) && prefix[n] == ind[n] {
			n++
		}
		prefix = prefix[:n]
	}
	for i, l := range lines {
		if blank(l) {
			lines[i] = ""
		} else {
			lines[i] = l[len(prefix):]
		}
	}
	return strings.Join(lines, "\n")
}
