// Decoding of property values: strings, integers, numbers, booleans and
// durations, each reporting invalid-property-value with a remedy when the
// value has the wrong form; and unknown properties with a did-you-mean.

package schema

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/parser"
)

// invalidValue reports a property value of the wrong form.
func (c *compiler) invalidValue(p *parser.Property, msg, detail string) {
	c.explain(diag.Errorf(CodeInvalidPropertyValue, p.Value.Span(), "%s", msg), detail)
}

// nonBlank reads a string property that must say something: a value that
// is empty or only blanks is reported (code, the message msg returns, with
// detail as the remedy). It returns the string and whether the value is
// one.
func (c *compiler) nonBlank(p *parser.Property, code string, msg func() string, detail string) (string, bool) {
	s, ok := c.str(p)
	if ok && strings.TrimSpace(s) == "" {
		c.explain(diag.Errorf(code, p.Value.Span(), "%s", msg()), detail)
	}
	return s, ok
}

// nonBlankText is nonBlank for a caller that wants only the diagnostics:
// it reads a string as written, which is blank when its text undented is
// (see [Dedent]), without making the undented text.
func (c *compiler) nonBlankText(p *parser.Property, code string, msg func() string, detail string) {
	if v := p.Value; v.Kind() == grammar.ScalarValue && isStringTok(v.Tok) {
		if strings.TrimSpace(v.Tok.Text()) == "" {
			c.explain(diag.Errorf(code, p.Value.Span(), "%s", msg()), detail)
		}
		return
	}
	c.str(p) // reports the value that is not a string
}

// unknownTestProp reports a property of a test, or of one of its turns and
// expectations, that is not one of known: an error, not a warning, since a
// misspelt expectation would be ignored and the test pass without checking
// it.
func (c *compiler) unknownTestProp(p *parser.Property, where string, known []string) {
	d := diag.Errorf(CodeUnknownProperty, p.KeySpan(), "unknown property %q for %s: in a test this is an error, as ignoring it would let the test pass unchecked", p.Key, where)
	suggestedOrList(&d, c.closestProp(p.Key, known), p.KeySpan(), known, "the properties of "+where+" are ", "")
	c.diags.Add(d)
}

// unknownProp reports a property that is not one of known, which describes
// where it is ("an agent"). When the property is likely a misspelling of
// meant, the message goes on with what ignoring it does: note(meant) ("so
// parameter x is required"), if note is set and that is not "".
func (c *compiler) unknownProp(p *parser.Property, where string, known []string, note func(meant string) string) {
	d := diag.Warningf(CodeUnknownProperty, p.KeySpan(), "unknown property %q for %s; it is ignored", p.Key, where)
	s := c.closestProp(p.Key, known)
	suggestedOrList(&d, s, p.KeySpan(), known, "the properties of "+where+" are ", "")
	if s != "" && note != nil {
		if n := note(s); n != "" {
			d.Message += ", " + n
		}
	}
	c.diags.Add(d)
}

// propQuestion is a did-you-mean question about an unknown property: the
// key and the list of known keys (by its first element and length).
type propQuestion struct {
	key   string
	known *string
	n     int
}

// closestProp is suggest.Closest(key, known), answered once per compile for
// each key and list: a misspelt key is often misspelt alike in many
// declarations.
func (c *compiler) closestProp(key string, known []string) string {
	if len(known) == 0 {
		return ""
	}
	q := propQuestion{key, &known[0], len(known)}
	if s, ok := c.propAnswers[q]; ok {
		return s
	}
	s := suggest.Closest(key, known)
	put(&c.propAnswers, q, s)
	return s
}

// str decodes a string property; fenced strings are dedented.
func (c *compiler) str(p *parser.Property) (string, bool) {
	v := p.Value
	if v.Kind() == grammar.ScalarValue && isStringTok(v.Tok) {
		return stringText(v.Tok), true
	}
	c.invalidValue(p, fmt.Sprintf("%s must be a string, not %s", p.Key, describeValue(v)),
		fmt.Sprintf(`write %s: "..."`, p.Key))
	return "", false
}

// boolean decodes a boolean property.
func (c *compiler) boolean(p *parser.Property) (bool, bool) {
	v := p.Value
	if v.Kind() == grammar.ScalarValue && v.Tok.Type == grammar.Bool {
		return v.Tok.Value == "true", true
	}
	c.invalidValue(p, fmt.Sprintf("%s must be true or false, not %s", p.Key, describeValue(v)),
		fmt.Sprintf("write %s: true or %s: false, without quotes", p.Key, p.Key))
	return false, false
}

// approval decodes the approval property of a tool or an agent: true or
// false, anything else an invalid-approval error.
func (c *compiler) approval(p *parser.Property) bool {
	v := p.Value
	if v.Kind() == grammar.ScalarValue && v.Tok.Type == grammar.Bool {
		return v.Tok.Value == "true"
	}
	c.explain(diag.Errorf(CodeInvalidApproval, v.Span(), "approval must be true or false, not %s", describeValue(v)),
		"write approval: true to have a person approve each call before it runs (without quotes), or remove the property")
	return false
}

// integer decodes an integer property that must be at least min; eg is an
// example value for messages.
func (c *compiler) integer(p *parser.Property, min, eg int) (int, bool) {
	v := p.Value
	if v.Kind() == grammar.ScalarValue && isIntegerTok(v.Tok) {
		text := string(numberJSON(v.Tok))
		n, err := strconv.Atoi(text)
		switch {
		case err == nil && n >= min:
			return n, true
		case errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(text, "-"):
			c.invalidValue(p, fmt.Sprintf("%s is too large: the maximum is %d", p.Key, math.MaxInt), fmt.Sprintf("write an integer from %d to %d", min, math.MaxInt))
		default:
			c.invalidValue(p, fmt.Sprintf("%s must be at least %d", p.Key, min), fmt.Sprintf("write an integer of %d or more", min))
		}
		return 0, false
	}
	c.invalidValue(p, fmt.Sprintf("%s must be an integer, not %s", p.Key, describeValue(v)),
		fmt.Sprintf("write an integer of %d or more, e.g. %s: %d", min, p.Key, eg))
	return 0, false
}

// number decodes a number property in [lo, hi].
func (c *compiler) number(p *parser.Property, lo, hi float64) (float64, bool) {
	v := p.Value
	if v.Kind() == grammar.ScalarValue && (isIntegerTok(v.Tok) || v.Tok.Type == grammar.Decimal) {
		f, err := strconv.ParseFloat(string(numberJSON(v.Tok)), 64)
		if err == nil && f >= lo && f <= hi && !math.IsNaN(f) {
			return f, true
		}
		c.invalidValue(p, fmt.Sprintf("%s must be between %g and %g", p.Key, lo, hi), fmt.Sprintf("write a number from %g to %g", lo, hi))
		return 0, false
	}
	c.invalidValue(p, fmt.Sprintf("%s must be a number, not %s", p.Key, describeValue(v)),
		fmt.Sprintf("write a number from %g to %g, e.g. %s: 0.7", lo, hi, p.Key))
	return 0, false
}

// duration decodes a measurement in ms, s or m.
func (c *compiler) duration(p *parser.Property) (time.Duration, bool) {
	v := p.Value
	const detail = "write a positive duration with a unit: ms, s or m, e.g. timeout: 30s"
	if v.Kind() != grammar.ScalarValue || v.Tok.Type != grammar.Measurement {
		c.invalidValue(p, fmt.Sprintf("%s must be a duration, not %s", p.Key, describeValue(v)), detail)
		return 0, false
	}
	num, unit := parser.NumberJSON(v.Tok)
	n, err := strconv.ParseInt(string(num), 10, 64)
	u, ok := durationUnits[unit]
	if !ok {
		c.invalidValue(p, fmt.Sprintf("unknown unit %q for %s", unit, p.Key), detail)
		return 0, false
	}
	if most := int64(math.MaxInt64 / u); n > most || errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(string(num), "-") {
		c.invalidValue(p, fmt.Sprintf("%s is too large: the maximum is %d%s", p.Key, most, unit),
			fmt.Sprintf("write a duration of at most %d%s (about %d years), e.g. timeout: 30s", most, unit, most*int64(u)/int64(365*24*time.Hour)))
		return 0, false
	}
	if err != nil || n <= 0 {
		c.invalidValue(p, fmt.Sprintf("%s must be positive", p.Key), detail)
		return 0, false
	}
	return time.Duration(n) * u, true
}

// durationUnits are the units of durations.
var durationUnits = map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "m": time.Minute}

// stringSpan returns the span of the text s[i:j] inside a quoted string
// token, or the whole value's span when offsets inside it are not exact
// (escapes, fenced strings).
func stringSpan(v *grammar.Value, i, j int) diag.Span {
	t := v.Tok
	if (t.Type == grammar.String || t.Type == grammar.Backtick) && !strings.ContainsRune(t.Value, '\\') {
		return diag.Span{Start: t.Start() + 1 + i, End: t.Start() + 1 + j}
	}
	return v.Span()
}
