// Package clip shortens text for messages on UTF-8 boundaries.
//
// # Entry points
//
//   - [Runes] cuts a string to at most n bytes on a rune boundary;
//   - [Text] does the same and marks the cut with an ellipsis;
//   - [OneLine] joins the lines of a string with spaces.
package clip

import (
	"strings"
	"unicode/utf8"
)

// Runes returns the longest prefix of s of at most n bytes that ends on a
// rune boundary.
func Runes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Text shortens s to n bytes with an ellipsis.
func Text(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Runes(s, n) + "…"
}

// OneLine replaces line breaks by spaces.
func OneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }), " ")
}
