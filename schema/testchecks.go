package schema

// Compiling the matchers of a test's arguments (checked against the
// arguments' types), the checks of its answer and its rubrics.

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/parser"
)

// pathResolver finds the declared type and schema of the value a path
// names, reporting names that do not exist at span; a nil type means
// unknown (anything goes).
type pathResolver func(path []string, span diag.Span) (*Type, Object, bool)

// argResolver resolves the paths of the arguments of tool (nil: unknown),
// reporting names that are not parameters or fields.
func (c *compiler) argResolver(tool *Tool) pathResolver {
	return func(path []string, span diag.Span) (*Type, Object, bool) {
		p, ok := c.argParam(tool, path[0], diag.Span{Start: span.Start, End: span.Start + len(path[0])})
		if !ok {
			return nil, nil, false
		}
		if p == nil {
			return nil, nil, true
		}
		return c.walkPath(p.Type, ParamSchema(p), path, 1, span.Start+len(path[0]), CodeUnknownArgument)
	}
}

// fieldMatcher compiles one matcher, a node such as (personName {matches:
// "^B"}) inside a Call or an Answer, its path resolved by resolve.
func (c *compiler) fieldMatcher(e *parser.Pattern, resolve pathResolver) *FieldMatcher {
	if e.Kind != parser.NodeKind || e.Subject.Identity == "" {
		c.diags.Add(detailed(diag.Errorf(CodeInvalidTestElement, e.Span(), "a Call's elements are argument matchers"),
			"write a node named after the argument with one matcher: (name {equals: \"Bob\"}), (name {any: true}), (name {matches: \"^B\"}), (count {range: 1..5}), (when {format: \"date-time\"}) or (name {absent: true})"))
		return nil
	}
	m := &FieldMatcher{Path: strings.Split(e.Subject.Identity, "."), Span: e.Span()}
	typ, sch, ok := resolve(m.Path, e.IdentSpan())
	if !ok {
		return nil
	}
	m.Type = typ
	var matcher *parser.Property
	for i := range e.Subject.Properties {
		pr := &e.Subject.Properties[i]
		if !slices.Contains(matcherProps, pr.Key) {
			c.unknownTestProp(pr, "an argument matcher", matcherProps)
			continue
		}
		if matcher != nil {
			c.diags.Add(detailed(diag.Errorf(CodeInvalidPropertyValue, pr.KeySpan(), "an argument matcher has one matcher; this one has %s and %s", matcher.Key, pr.Key),
				"keep one, or match the argument twice with two nodes in two Calls"))
			continue
		}
		matcher = pr
	}
	if matcher == nil {
		c.missingProp(e, fmt.Sprintf("the matcher of %s does not say what to match", m.Name()),
			"add one of equals, any, matches, range, format or absent: ("+m.Name()+" {any: true})")
		return nil
	}
	if !c.matcher(m, matcher, sch) {
		return nil
	}
	return m
}

// walkPath follows path from its segment i, at offset off in the source
// (the character before the segment), in a value of type typ and schema
// sch; code is that of a segment the type does not have.
func (c *compiler) walkPath(typ *Type, sch Object, path []string, i, off int, code string) (*Type, Object, bool) {
	for k, seg := range path[i:] {
		segSpan := diag.Span{Start: off + 1, End: off + 1 + len(seg)}
		off = segSpan.End
		switch typ.Kind {
		case ArrayType:
			if _, err := strconv.Atoi(seg); err != nil {
				c.diags.Add(detailed(diag.Errorf(code, segSpan, "%q is not an index of an array", seg), "an array's items are numbered from 0: items.0.sku"))
				return nil, nil, false
			}
			if typ.Items == nil {
				return nil, nil, true
			}
			typ, sch = typ.Items, TypeSchema(typ.Items, false)
		case RecordType:
			if typ.Record == nil {
				return nil, nil, true
			}
			f := typ.Record.Field(seg)
			if f == nil {
				names := namesOf(typ.Record.Fields, paramName)
				dg := diag.Errorf(code, segSpan, "record %s has no field %s", typ.Record.Name, seg)
				are := "the fields of " + typ.Record.Name + " are "
				suggestOrList(&dg, seg, segSpan, names, are, are)
				c.diags.Add(dg)
				return nil, nil, false
			}
			typ, sch = f.Type, ParamSchema(f)
		case ObjectType, InvalidType:
			return nil, nil, true
		default:
			what, help := strings.Join(path[:i+k], "."), "match the value itself: drop ."+seg
			if what == "" {
				what, help = "the answer", "check the whole answer, as gramc run prints it: (:Answer {equals: \"...\"})"
			}
			c.diags.Add(detailed(diag.Errorf(code, segSpan, "%s is %s, which has no field %s", what, article(typ), seg), help))
			return nil, nil, false
		}
	}
	return typ, sch, true
}

// matcher decodes the matcher property of an argument matcher, one of
// matcherProps, checking it fits the argument's type.
func (c *compiler) matcher(m *FieldMatcher, pr *parser.Property, sch Object) bool {
	v := pr.Value
	m.Kind = MatcherKind(slices.Index(matcherProps, pr.Key))
	switch pr.Key {
	case "equals":
		if v.Kind() == grammar.RangeValue && m.Type != nil && (m.Type.Kind == IntegerType || m.Type.Kind == NumberType) {
			dg := diag.Errorf(CodeInvalidArgumentValue, v.Span(), "equals compares with one value; %s is a range", c.text(v.Span()))
			suggestFix(&dg, "range", pr.KeySpan())
			dg.Detail = "to accept any number in the range, write range: " + c.text(v.Span())
			c.diags.Add(dg)
			return false
		}
		x, ok := c.argValue(m.Name(), v, m.Type, sch)
		if !ok {
			return false
		}
		m.Value = x
	case "any", "absent":
		if b, ok := c.boolean(pr); !ok {
			return false
		} else if !b {
			c.invalidValue(pr, pr.Key+" can only be true", "write "+pr.Key+": true, or remove the matcher")
			return false
		}
	case "matches", "format":
		if !c.matcherFits(m, pr, StringType) {
			return false
		}
		s, ok := c.str(pr)
		if !ok {
			return false
		}
		if pr.Key == "matches" {
			re, err := regexp.Compile(s)
			if err != nil {
				c.invalidValue(pr, fmt.Sprintf("invalid regular expression: %v", err), "write a Go (RE2) regular expression, e.g. matches: \"^B\"")
				return false
			}
			m.Regex = re
			return true
		}
		m.Format = s
		if !slices.Contains(ValueFormats, s) {
			dg := diag.Errorf(CodeInvalidPropertyValue, v.Span(), "unknown format %q", s)
			if sug := suggest.Closest(s, ValueFormats); sug != "" && v.Tok.Type == grammar.String {
				suggestFix(&dg, sug, stringSpan(v, 0, len(s)))
				dg.Detail += " The formats are " + strings.Join(ValueFormats, ", ") + "."
			} else {
				dg.Detail = "the formats are " + strings.Join(ValueFormats, ", ")
			}
			c.diags.Add(dg)
			return false
		}
	case "range":
		if !c.matcherFits(m, pr, NumberType) {
			return false
		}
		lo, hi, ok := c.rangeBounds(pr)
		if !ok {
			return false
		}
		m.Min, m.Max = lo, hi
	}
	return true
}

// matcherFits reports whether a matcher applies to the argument's type:
// strings for matches and format, numbers for range.
func (c *compiler) matcherFits(m *FieldMatcher, pr *parser.Property, want TypeKind) bool {
	if m.Type == nil || m.Type.Kind == InvalidType || m.Type.Kind == want || want == NumberType && m.Type.Kind == IntegerType {
		return true
	}
	applies := "strings"
	if want == NumberType {
		applies = "numbers"
	}
	dg := diag.Errorf(CodeMatcherTypeMismatch, pr.KeySpan(), "%s applies to %s, but %s is %s", pr.Key, applies, m.Name(), article(m.Type))
	switch m.Type.Kind {
	case IntegerType, NumberType:
		dg.Detail = "match a number with equals or range, e.g. range: 1..10"
	case StringType:
		dg.Detail = "match a string with equals, matches or format, e.g. matches: \"^A\""
	default:
		dg.Detail = "match " + article(m.Type) + " with equals or any, or match a value inside it with a dotted path"
	}
	c.diags.Add(dg)
	return false
}

// rangeBounds decodes a range value into its bounds.
func (c *compiler) rangeBounds(pr *parser.Property) (*float64, *float64, bool) {
	v := pr.Value
	const detail = "write a range of numbers: range: 1..10, range: 5... (at least 5) or range: ...100 (at most 100)"
	if v.Kind() != grammar.RangeValue {
		c.invalidValue(pr, "range must be a range, not "+describeValue(v), detail)
		return nil, nil, false
	}
	bound := func(t grammar.Tok) (*float64, bool) {
		if !t.Valid() {
			return nil, true
		}
		f, err := strconv.ParseFloat(string(numberJSON(t)), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, false
		}
		return &f, true
	}
	lo, ok1 := bound(v.Tok)
	hi, ok2 := bound(v.Upper())
	if !ok1 || !ok2 {
		c.invalidValue(pr, "the bounds of the range are not numbers", detail)
		return nil, nil, false
	}
	if lo != nil && hi != nil && *lo > *hi {
		c.invalidValue(pr, fmt.Sprintf("the range is empty: %g is more than %g", *lo, *hi), "write the lower bound first: range: 1..10")
		return nil, nil, false
	}
	return lo, hi, true
}

// answerChecks compiles an Answer element: one check per property.
func (c *compiler) answerChecks(e *parser.Pattern) []*AnswerCheck {
	var out []*AnswerCheck
	for i := range e.Subject.Properties {
		pr := &e.Subject.Properties[i]
		span := diag.Span{Start: pr.KeySpan().Start, End: pr.Value.Span().End}
		switch pr.Key {
		case "contains", "equals":
			if s, ok := c.str(pr); ok {
				k := AnswerKind(slices.Index(answerKinds, pr.Key))
				out = append(out, &AnswerCheck{Kind: k, Text: s, Span: span})
			}
		case "matches":
			if s, ok := c.str(pr); ok {
				re, err := regexp.Compile(s)
				if err != nil {
					c.invalidValue(pr, fmt.Sprintf("invalid regular expression: %v", err), "write a Go (RE2) regular expression, e.g. matches: \"(?i)hello\"")
					continue
				}
				out = append(out, &AnswerCheck{Kind: AnswerMatches, Text: s, Regex: re, Span: span})
			}
		case "json":
			name, ok := c.nameValue(pr)
			if !ok {
				continue
			}
			if typ := c.answerType(name, pr.Value.Span()); typ != nil {
				out = append(out, &AnswerCheck{Kind: AnswerJSON, Text: name, Type: typ, Span: span})
			}
		default:
			c.unknownTestProp(pr, "an Answer", answerProps)
		}
	}
	if len(e.Subject.Properties) == 0 && len(e.Elements) == 0 {
		c.missingProp(e, "the Answer expectation does not say what to check",
			"add a check: (:Answer {contains: \"...\"}), {matches: \"regex\"}, {equals: \"...\"} or {json: RecordName}, or match the fields of a typed answer: [:Answer | (field {equals: 1})]")
	}
	return out
}

// answerType resolves the type of a json answer check: a record of the file
// (or of the file it tests) or a built-in type.
func (c *compiler) answerType(name string, span diag.Span) *Type {
	t := &Type{Name: name, Span: span}
	if k, ok := builtinTypes[name]; ok {
		t.Kind = k
		return t
	}
	if r := c.lookupRecord(name); r != nil {
		t.Kind, t.Record = RecordType, r
		return t
	}
	names := slices.Clone(BuiltinTypes)
	for _, p := range append([]*Program{c.prog}, c.env...) {
		for _, r := range p.Records {
			names = append(names, r.Name)
		}
	}
	dg := diag.Errorf(CodeUnknownType, span, "unknown type %q for the answer's JSON", name)
	suggestedOrList(&dg, suggest.Closest(name, names), span, nil, "",
		"name a record of the file, [Name:Record | (field::String)], or a built-in type such as Object")
	c.diags.Add(dg)
	return nil
}

// rubric compiles a Rubric element.
func (c *compiler) rubric(e *parser.Pattern) *Rubric {
	c.checkPropKeys(e, "a Rubric", rubricProps)
	r := &Rubric{Threshold: DefaultThreshold, Span: e.Span()}
	judge, criterion := e.Subject.Prop("judge"), e.Subject.Prop("criterion")
	if judge == nil {
		c.missingProp(e, "the rubric does not name its judge", "add the agent that scores the reply: (:Rubric {judge: my_judge, criterion: \"...\"})")
	} else if name, ok := c.nameValue(judge); ok {
		r.JudgeName, r.JudgeSpan = name, judge.Value.Span()
		if r.Judge = c.lookupAgent(name); r.Judge == nil {
			c.unknownAgent(name, judge.Value.Span(), "the rubric")
		}
	}
	if criterion == nil {
		c.missingProp(e, "the rubric has no criterion", "say what the judge checks: (:Rubric {judge: ..., criterion: \"The answer greets the user by name\"})")
	} else if s, ok := c.nonBlank(criterion, CodeInvalidPropertyValue, func() string { return "the criterion is empty" }, "say what the judge checks: criterion: \"The answer greets the user by name\""); ok {
		r.Criterion = s
	}
	if pr := e.Subject.Prop("threshold"); pr != nil {
		if f, ok := c.number(pr, 0, 1); ok {
			r.Threshold = f
		}
	}
	c.noElements(e, RubricLabel)
	if judge == nil || criterion == nil {
		return nil
	}
	return r
}
