// The forms a secret may be written in, for the tests of its masking.

package gramtest

import (
	"fmt"
	"strings"
)

// Form is a secret written in one way.
type Form struct {
	Name string // how it is written
	Text string
}

// SecretForms returns the forms of s that a redactor masks and that a
// model may write: plain, with a double quote escaped (\"), every byte
// JSON-escaped (\u00xx with lower-case, upper-case and mixed-case hex, and
// escaped again as in JSON inside JSON) and every byte URL-encoded (%xx,
// lower- and upper-case).
func SecretForms(s string) []Form {
	each := func(format func(i int, c byte) string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			b.WriteString(format(i, s[i]))
		}
		return b.String()
	}
	return []Form{
		{"plain", s},
		{"quote escaped", strings.ReplaceAll(s, `"`, `\"`)},
		{"JSON escapes", each(func(_ int, c byte) string { return fmt.Sprintf(`\u%04x`, c) })},
		{"JSON escapes, upper-case hex", each(func(_ int, c byte) string { return fmt.Sprintf(`\u%04X`, c) })},
		{"JSON escapes, mixed-case hex", each(func(i int, c byte) string {
			if i%2 == 0 {
				return fmt.Sprintf(`\u%04X`, c)
			}
			return fmt.Sprintf(`\u%04x`, c)
		})},
		{"JSON escapes in JSON", each(func(_ int, c byte) string { return fmt.Sprintf(`\\u%04x`, c) })},
		{"URL-encoded", each(func(_ int, c byte) string { return fmt.Sprintf("%%%02x", c) })},
		{"URL-encoded, upper-case hex", each(func(_ int, c byte) string { return fmt.Sprintf("%%%02X", c) })},
	}
}
