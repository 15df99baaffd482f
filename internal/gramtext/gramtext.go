// Package gramtext writes names, strings and numbers in gram notation. It is
// a leaf package, shared by the printers of the parser, the MCP importer and
// the messages of the runtime.
//
// # Entry points
//
//   - [IsSymbol] is the one rule for a name that can stand bare;
//     [Name] writes a name bare or in backticks ([Backtick]).
//   - [Quote] writes a double-quoted string; [Escape] escapes for any quote.
//   - [Number] writes a JSON number as a gram integer or decimal.
//   - [Ordinal] writes a position in English: "1st", "2nd", "129th";
//     [Plural] and [Count] write a number of things: "1 test", "2 tests".
package gramtext

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

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

// Number writes a JSON number as a gram integer or decimal (gram has no
// exponents); integer requires a whole number. It fails on a number that
// is not whole when integer is set, and on one that needs more than 100
// decimal places.
func Number(n json.Number, integer bool) (string, bool) {
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return "", false
	}
	if r.IsInt() {
		return r.Num().String(), true
	}
	if integer {
		return "", false
	}
	// A decimal's denominator is 2^a·5^b; max(a, b) digits write it exactly.
	den := new(big.Int).Set(r.Denom())
	digits := 0
	for _, p := range []int64{2, 5} {
		d, m, k := new(big.Int).Set(den), new(big.Int), 0
		for {
			q, rem := new(big.Int).QuoRem(d, big.NewInt(p), m)
			if rem.Sign() != 0 {
				break
			}
			d = q
			k++
		}
		digits = max(digits, k)
	}
	if digits > 100 {
		return "", false
	}
	return r.FloatString(digits), true
}

// Ordinal writes n as a position in English: "1st", "2nd", "3rd", "4th",
// "11th", "129th".
func Ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// Plural returns one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count writes n things called what (an s added for more than one):
// "1 error", "2 errors", "0 errors".
func Count(n int, what string) string {
	return fmt.Sprintf("%d %s", n, Plural(n, what, what+"s"))
}
