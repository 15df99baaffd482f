// Package shellquote writes words for sh, as the commands and fixes that
// gram prints for people to run write them: [Quote].
package shellquote

import "strings"

// Quote quotes s for sh when it needs it: as it is when it holds only
// letters, digits and -_./=:@,+%, else in single quotes.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@,+%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
