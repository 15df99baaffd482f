// Checks of a parameter's validation keywords against each other and
// against its default: bounds that leave no value (minimum above maximum,
// and the same of lengths and item counts) and a default the parameter's
// own schema refuses. Both would otherwise pass `gramc check` and fail at
// the first call.

package schema

import (
	"fmt"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/parser"
)

// boundPairs are the lower and upper bounds that must not cross.
var boundPairs = [][2]string{{"minimum", "maximum"}, {"minLength", "maxLength"}, {"minItems", "maxItems"}}

// checkBounds reports the bounds of p that cross, and a default (dflt,
// nil when there is none or it has the wrong type) outside them. what is
// "parameter" or "field".
func (c *compiler) checkBounds(p *Param, dflt *parser.Property, what string) {
	for _, pair := range boundPairs {
		lo, okLo := Object(p.Constraints).Get(pair[0])
		hi, okHi := Object(p.Constraints).Get(pair[1])
		if !okLo || !okHi || numberOf(lo) <= numberOf(hi) {
			continue
		}
		loSpan, _ := PropSpan(p.Props, pair[0])
		hiSpan, _ := PropSpan(p.Props, pair[1])
		dg := diag.Errorf(CodeContradictoryBounds, hiSpan, "%s %s has %s %v above its %s %v: no value is allowed", what, p.Name, pair[0], lo, pair[1], hi)
		dg.Related = []diag.Related{{Span: loSpan, Message: pair[0] + " of " + p.Name}}
		c.explain(dg, fmt.Sprintf("make %s at most %s (were they swapped?)", pair[0], pair[1]))
	}
	if dflt == nil || !p.HasDefault {
		return
	}
	for _, m := range p.Constraints {
		if why := refuses(m, p.Default); why != "" {
			key, _ := PropSpan(p.Props, m.Key)
			dg := diag.Errorf(CodeDefaultOutOfBounds, dflt.Value.Span(), "the default of %s %s %s", what, p.Name, why)
			dg.Related = []diag.Related{{Span: key, Message: m.Key + " of " + p.Name}}
			c.explain(dg, "change the default to a value its "+m.Key+" allows, or change the "+m.Key)
			return
		}
	}
}

// numberOf returns a constraint's or a value's number: a JSON number (a
// bound, a default) or an int (a length or an item count); 0 for anything
// else.
func numberOf(v any) float64 {
	switch x := v.(type) {
	case fmt.Stringer: // json.Number
		f, _ := strconv.ParseFloat(x.String(), 64)
		return f
	case int:
		return float64(x)
	}
	return 0
}

// refuses says why the keyword m refuses the value v (a default, in its
// JSON form), or "" when it accepts it or does not apply to it. format is
// an annotation to most validators and is not checked.
func refuses(m Member, v any) string {
	limit := numberOf(m.Value)
	var n float64
	var what string // the value as the keyword measures it
	switch m.Key {
	case "minimum", "maximum":
		if _, ok := v.(fmt.Stringer); !ok {
			return ""
		}
		n = numberOf(v)
		what = fmt.Sprintf("is %v", v)
	case "minLength", "maxLength":
		s, ok := v.(string)
		if !ok {
			return ""
		}
		n = float64(utf8.RuneCountInString(s))
		what = "is " + gramtext.Count(int(n), "character") + " long"
	case "minItems", "maxItems":
		l, ok := v.([]any)
		if !ok {
			return ""
		}
		n = float64(len(l))
		what = "has " + gramtext.Count(len(l), "item")
	case "pattern":
		s, ok := v.(string)
		re, err := regexp.Compile(fmt.Sprint(m.Value))
		if ok && err == nil && !re.MatchString(s) {
			return fmt.Sprintf("does not match its pattern %q", m.Value)
		}
		return ""
	default:
		return ""
	}
	switch {
	case m.Key[:3] == "min" && n < limit:
		return fmt.Sprintf("%s, under its %s %v", what, m.Key, m.Value)
	case m.Key[:3] == "max" && n > limit:
		return fmt.Sprintf("%s, over its %s %v", what, m.Key, m.Value)
	}
	return ""
}
