// Text helpers: dedenting fenced strings.

package schema

import "strings"

// Dedent returns the text of a fenced string as the agent language reads it:
// line ends normalized to "\n", leading and trailing blank lines dropped,
// the indentation common to all non-blank lines removed, and lines of only
// white space made empty (inner blank lines are kept).
func Dedent(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	// The lines from the first non-blank one to the last, s[start:end], and
	// the indentation they share.
	start, end := -1, 0
	prefix := ""
	clean := true // no line of only white space inside: s[start:end] may be kept as it is
	// The result is s[start:end] less the prefix of each of its
	// non-blank lines and the white space of its blank lines (counted in
	// pending until a non-blank line follows them).
	lines, blank, pending := 0, 0, 0
	for i := 0; i <= len(s); {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			j = len(s)
		} else {
			j += i
		}
		line := s[i:j]
		ind := len(line) - len(strings.TrimLeft(line, " \t"))
		switch {
		case ind == len(line):
			if ind > 0 {
				clean = false
			}
			pending += ind
		case start < 0:
			start, prefix = i, line[:ind]
			lines, pending = 1, 0
		default:
			lines++
			blank, pending = blank+pending, 0
			n := 0
			for n < len(prefix) && n < ind && prefix[n] == line[n] {
				n++
			}
			prefix = prefix[:n]
		}
		if ind < len(line) {
			end = j
		}
		i = j + 1
	}
	if start < 0 {
		return ""
	}
	if prefix == "" && clean {
		return s[start:end]
	}
	var b strings.Builder
	b.Grow(end - start - lines*len(prefix) - blank)
	for i := start; i <= end; {
		j := strings.IndexByte(s[i:end], '\n')
		if j < 0 {
			j = end
		} else {
			j += i
		}
		if i > start {
			b.WriteByte('\n')
		}
		if line := s[i:j]; strings.TrimLeft(line, " \t") != "" {
			b.WriteString(line[len(prefix):])
		}
		i = j + 1
	}
	return b.String()
}
