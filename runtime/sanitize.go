// Sanitising the user's text before a model sees it: control characters
// other than newline and tab are removed, and so are the bidirectional
// embeddings, overrides and isolates, which make text display in another
// order than the one the model reads (U+202E shows "txt.exe" as
// "exe.txt"); bytes that are not UTF-8 become U+FFFD (and so do the JSON
// escapes of lone surrogates, "\ud800", where a decoder read the text). The marks U+200E,
// U+200F and U+061C are kept: they only set the direction of the neutral
// characters beside them, and right-to-left text needs them. Every kind
// of change gives one warning, naming the characters and the messages.

package runtime

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gramlang/gram/internal/jsonvalue"
)

// bidiControls are the bidirectional formatting characters that sanitising
// removes, with their names.
var bidiControls = map[rune]string{
	0x202A: "left-to-right embedding",
	0x202B: "right-to-left embedding",
	0x202C: "pop directional formatting",
	0x202D: "left-to-right override",
	0x202E: "right-to-left override",
	0x2066: "left-to-right isolate",
	0x2067: "right-to-left isolate",
	0x2068: "first strong isolate",
	0x2069: "pop directional isolate",
}

// The kinds of change a [Sanitizer] makes.
const (
	changeControl = iota // a control character removed
	changeBidi           // a bidirectional formatting character removed
	changeInvalid        // a byte that is not UTF-8 replaced
	changeKinds
)

// The most characters and places a warning names; the others are counted.
const (
	maxNamedRunes  = 8
	maxNamedPlaces = 5
)

// Sanitizer sanitises the text of user messages before it is sent to a
// model, as [Run] does, and gathers what it changed for the warnings. Its
// zero value is ready to use; it is not safe for concurrent use.
type Sanitizer struct {
	changes [changeKinds]changeSet
	// escapes are the JSON escapes of lone surrogates among the changes of
	// changeInvalid, counted apart from the bytes.
	escapes int
}

// changeSet is what a Sanitizer changed of one kind.
type changeSet struct {
	count int
	runes []rune   // the distinct characters removed, in the order met
	where []string // the places changed, in the order met
}

// add records n changes of the character r (-1 for none) at where.
func (c *changeSet) add(where string, r rune, n int) {
	c.count += n
	if r >= 0 && len(c.runes) <= maxNamedRunes && !containsRune(c.runes, r) {
		c.runes = append(c.runes, r)
	}
	if len(c.where) == 0 || c.where[len(c.where)-1] != where {
		c.where = append(c.where, where)
	}
}

// containsRune reports whether rs holds r.
func containsRune(rs []rune, r rune) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// Text returns s sanitised: without control characters other than newline
// and tab, without bidirectional embeddings, overrides and isolates
// (U+202A to U+202E, U+2066 to U+2069), and with each byte that is not
// UTF-8 replaced by U+FFFD. where names s in the warnings
// ("conversation[2]", "messages[0].content").
func (z *Sanitizer) Text(where, s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
			z.changes[changeInvalid].add(where, -1, 1)
		case bidiControls[r] != "":
			z.changes[changeBidi].add(where, r, 1)
		case unicode.IsControl(r) && r != '\n' && r != '\t':
			z.changes[changeControl].add(where, r, 1)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// clean reports whether s needs no change.
func clean(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) && r != '\n' && r != '\t' || bidiControls[r] != "" {
			return false
		}
	}
	return true
}

// Replaced records that invalidBytes bytes that are not UTF-8 and
// loneEscapes JSON escapes of lone surrogates ("\ud800") were replaced by
// U+FFFD in the text at where before it reached the Sanitizer, as a JSON
// decoder does without a word, so that the warnings say it.
func (z *Sanitizer) Replaced(where string, invalidBytes, loneEscapes int) {
	if n := invalidBytes + loneEscapes; n > 0 {
		z.changes[changeInvalid].add(where, -1, n)
		z.escapes += loneEscapes
	}
}

// Changed reports whether the Sanitizer changed anything.
func (z *Sanitizer) Changed() bool {
	for _, c := range z.changes {
		if c.count > 0 {
			return true
		}
	}
	return false
}

// Warnings returns one warning per kind of change made, naming the
// characters removed and the places changed, e.g. "2 control characters
// (U+0000, U+001B) were removed from the user's text before it was sent to
// the model, in conversation[0] and the new message".
func (z *Sanitizer) Warnings() []string {
	var out []string
	if c := z.changes[changeControl]; c.count > 0 {
		n, were := counted(c.count, "control character")
		out = append(out, fmt.Sprintf("%s (%s) %s removed from the user's text before it was sent to the model, in %s",
			n, runeList(c, false), were, places(c.where)))
	}
	if c := z.changes[changeBidi]; c.count > 0 {
		n, were := counted(c.count, "bidirectional formatting character")
		out = append(out, fmt.Sprintf("%s (%s) %s removed from the user's text before it was sent to the model, in %s",
			n, runeList(c, true), were, places(c.where)))
	}
	if c := z.changes[changeInvalid]; c.count > 0 {
		out = append(out, fmt.Sprintf("%s replaced by U+FFFD before the text was sent to the model, in %s",
			jsonvalue.ReplacedText(c.count-z.escapes, z.escapes), places(c.where)))
	}
	return out
}

// counted returns ("1 control character", "was") or ("3 control
// characters", "were").
func counted(n int, noun string) (string, string) {
	if n == 1 {
		return "1 " + noun, "was"
	}
	return fmt.Sprintf("%d %ss", n, noun), "were"
}

// runeList names the characters of c: "U+0000, U+001B", with their names
// when named is set ("U+202E right-to-left override").
func runeList(c changeSet, named bool) string {
	parts := make([]string, 0, len(c.runes))
	for i, r := range c.runes {
		if i == maxNamedRunes {
			parts = append(parts, "…")
			break
		}
		p := fmt.Sprintf("U+%04X", r)
		if named {
			p += " " + bidiControls[r]
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// places lists the places: "a", "a and b", "a, b and c", or the first
// ones "and 3 more".
func places(where []string) string {
	if len(where) > maxNamedPlaces {
		return strings.Join(where[:maxNamedPlaces], ", ") + fmt.Sprintf(" and %d more", len(where)-maxNamedPlaces)
	}
	if len(where) == 1 {
		return where[0]
	}
	return strings.Join(where[:len(where)-1], ", ") + " and " + where[len(where)-1]
}
