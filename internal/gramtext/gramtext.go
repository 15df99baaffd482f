// Package gramtext writes names and strings in gram notation: whether a name
// can stand bare, and how to quote it otherwise. It is a leaf package, shared
// by the printers of the parser and the code generators of the runtime.
package gramtext

import "strings"

// IsSymbol reports whether s can be written as a bare symbol:
// [a-zA-Z_][0-9a-zA-Z_.\-@]*, and not true or false.
func IsSymbol(s string) bool {
	if s == "" || s == "true" || s == "false" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c|0x20 >= 'a' && c|0x20 <= 'z'
		if i == 0 && !(letter || c == '_') {
			return false
		}
		if !(letter || c == '_' || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '@') {
			return false
		}
	}
	return true
}

// Escape escapes s for a one-line gram string or name quoted with q (one of
// ' " `): backslash, the quote, and \n \r \t \b \f are escaped; other
// characters, control characters included, stand as they are (a quoted gram
// string may hold anything but a line end and its unescaped quote).
func Escape(s string, q rune) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case q:
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Quote returns s as a double-quoted gram string.
func Quote(s string) string { return `"` + Escape(s, '"') + `"` }

// Backtick returns s quoted with backticks, as a name that is not a symbol.
func Backtick(s string) string { return "`" + Escape(s, '`') + "`" }

// Name returns s bare when it is a symbol, else in backticks.
func Name(s string) string {
	if IsSymbol(s) {
		return s
	}
	return Backtick(s)
}
