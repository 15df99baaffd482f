// Lints that save tokens: descriptions that only repeat a name or restate
// a default, and records of the same shape. Every token of a tool
// definition is sent to the model with each request, so text that tells
// the model nothing new costs on every call.

package schema

import (
	"fmt"
	"hash/maphash"
	"iter"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// repeatsName reports whether a description says no more than the name it
// describes: the same letters and digits, case, articles and the breaks
// between words aside ("Get order" or "Get the order" for getOrder). A
// name of one character is a placeholder, as in examples, and is left
// alone. Told without allocating for a name of up to 64 characters.
func repeatsName(name, description string) bool {
	if utf8.RuneCountInString(name) < 2 {
		return false
	}
	var buf [64]rune
	want := slices.AppendSeq(buf[:0], wordLetters(name, false))
	i := 0
	for r := range wordLetters(description, true) {
		if i == len(want) || r != want[i] {
			return false
		}
		i++
	}
	return i > 0 && i == len(want)
}

// wordLetters returns the letters and digits of s in lower case, leaving
// out, with articles, those of the words "a", "an" and "the".
func wordLetters(s string, articles bool) iter.Seq[rune] {
	return func(yield func(rune) bool) {
		for w := range strings.FieldsFuncSeq(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if articles && (strings.EqualFold(w, "a") || strings.EqualFold(w, "an") || strings.EqualFold(w, "the")) {
				continue
			}
			for _, r := range w {
				if !yield(unicode.ToLower(r)) {
					return
				}
			}
		}
	}
}

// toolDescriptionLint reports the description of tool t, written by pr,
// when it only repeats the tool's name. The description cannot go (a tool
// needs one), so there is no fix.
func (c *compiler) toolDescriptionLint(t *Tool, pr *parser.Property) {
	if pr == nil || !repeatsName(t.Name, t.Description) {
		return
	}
	c.diags.Add(detailed(diag.Warningf(CodeDescriptionRepeatsName, pr.ValueSpan(), "the description of tool %s only repeats its name", disp(t.Name)),
		"the model already reads the name; say when to call the tool, what it needs and what it returns, or what it changes"))
}

// paramDescriptionLints reports the description of parameter or field p
// (what) when it only repeats p's name or restates its default, dflt;
// prs are p's properties as written.
func (c *compiler) paramDescriptionLints(p *Param, prs []parser.Property, dflt *parser.Property, what string) {
	i := slices.IndexFunc(prs, func(pr parser.Property) bool { return pr.Key == "description" })
	if i < 0 || p.Description == "" {
		return
	}
	pr := &prs[i]
	if repeatsName(p.Name, p.Description) {
		dg := diag.Warningf(CodeDescriptionRepeatsName, pr.ValueSpan(), "the description of %s %s only repeats its name", what, p.Name)
		dg.Detail = "the model already reads the name; say what the value means, its unit or format, or where it comes from, or remove the description"
		if span, ok := c.propRemoval(prs, i); ok {
			dg.Fixes = []diag.Fix{replaceFix("Remove the description", span, "")}
		}
		c.diags.Add(dg)
		return
	}
	if dflt == nil || dflt.Value == nil {
		return
	}
	value := strings.Trim(c.text(dflt.ValueSpan()), "\"")
	lower := strings.ToLower(p.Description)
	if value == "" || !strings.Contains(lower, "default") || !containsWord(lower, strings.ToLower(value)) {
		return
	}
	dg := diag.Warningf(CodeDefaultInDescription, pr.ValueSpan(), "the description of %s %s restates its default, %s", what, p.Name, value)
	dg.Detail = "the schema sends the default to the model already: remove it from the description"
	if cut, ok := cutDefaultClause(p.Description, value); ok && c.text(pr.ValueSpan()) == "\""+p.Description+"\"" {
		dg.Fixes = []diag.Fix{replaceFix("Remove the default from the description", pr.ValueSpan(), "\""+cut+"\"")}
	}
	c.diags.Add(dg)
}

// propRemoval returns the span that removes property i of prs, with the
// comma that separates it from a neighbour; false when it is the only
// property, or the text between it and its neighbour, sep, is more than a
// comma and spaces.
func (c *compiler) propRemoval(prs []parser.Property, i int) (diag.Span, bool) {
	var span, sep diag.Span
	switch {
	case i+1 < len(prs):
		span = diag.Span{Start: prs[i].KeySpan().Start, End: prs[i+1].KeySpan().Start}
		sep = diag.Span{Start: prs[i].ValueSpan().End, End: span.End}
	case i > 0:
		span = diag.Span{Start: prs[i-1].ValueSpan().End, End: prs[i].ValueSpan().End}
		sep = diag.Span{Start: span.Start, End: prs[i].KeySpan().Start}
	default:
		return diag.Span{}, false
	}
	if sep.Start > sep.End || strings.TrimSpace(c.text(sep)) != "," || prs[i].Value == nil || span.Start >= span.End {
		return diag.Span{}, false
	}
	return span, true
}

// cutDefaultClause returns description without its last clause when that
// clause states the default, value: a trailing parenthesis ("How many
// (default 10)"), sentence ("How many. Defaults to 10.") or comma clause
// ("How many, default 10"); false when there is no such clause or nothing
// would be left.
func cutDefaultClause(description, value string) (string, bool) {
	s := strings.TrimRight(description, " ")
	states := func(clause string) bool {
		l := strings.ToLower(clause)
		return strings.Contains(l, "default") && containsWord(l, strings.ToLower(value))
	}
	keep := func(rest, end string) (string, bool) {
		rest = strings.TrimRight(rest, " ,;")
		if !strings.ContainsFunc(rest, unicode.IsLetter) {
			return "", false
		}
		return rest + end, true
	}
	body := strings.TrimSuffix(s, ".")
	if strings.HasSuffix(body, ")") {
		if open := strings.LastIndex(body, "("); open >= 0 && states(body[open:]) {
			return keep(body[:open], s[len(body):])
		}
		return "", false
	}
	if dot := strings.LastIndex(body, ". "); dot >= 0 && states(body[dot+2:]) {
		return keep(body[:dot+1], "")
	}
	if comma := strings.LastIndex(body, ", "); comma >= 0 && states(body[comma+2:]) && !strings.Contains(body[comma:], ". ") {
		return keep(body[:comma], s[len(body):])
	}
	return "", false
}

// containsWord reports whether s holds w not as part of a longer word or
// number: "0" is in "default 0" but not in "100".
func containsWord(s, w string) bool {
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	for i := 0; i <= len(s)-len(w); {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		before, _ := utf8.DecodeLastRuneInString(s[:start])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if (start == 0 || !isWord(before)) && (end == len(s) || !isWord(after)) {
			return true
		}
		i = start + 1
	}
	return false
}

// shapeOf returns the shape of a record: its fields' names, types and
// optionality, in the order of their names.
func shapeOf(r *Record) string {
	fields := make([]string, len(r.Fields))
	for i, f := range r.Fields {
		fields[i] = fmt.Sprintf("%s::%s/%t", f.Name, f.Type, f.Optional)
	}
	slices.Sort(fields)
	return strings.Join(fields, ",")
}

// recordShapeLints reports each record of the file with the shape of an
// earlier one: one record can serve both. Records are grouped by a key
// made without allocating (the number of fields and a sum of hashes of
// their names and types); shapes are written out only within a group.
func (c *compiler) recordShapeLints() {
	type key struct {
		n int
		h uint64
	}
	groups := map[key][]*Record{}
	for _, r := range c.prog.Records {
		if len(r.Fields) == 0 || r.Name == "" {
			continue
		}
		k := key{n: len(r.Fields)}
		for _, f := range r.Fields {
			h := maphash.String(shapeSeed, f.Name)
			if f.Type != nil {
				h ^= maphash.String(shapeSeed, f.Type.Name) * 31
			}
			if f.Optional {
				h++
			}
			k.h += h
		}
		group := groups[k]
		groups[k] = append(group, r)
		if len(group) == 0 {
			continue
		}
		shape := shapeOf(r)
		i := slices.IndexFunc(group, func(g *Record) bool { return shapeOf(g) == shape })
		if i < 0 {
			continue
		}
		f := group[i]
		c.diags.Add(detailed(diag.Warningf(CodeDuplicateRecordShape, r.NameSpan, "record %s has the same fields as record %s", r.Name, f.Name),
			"use one record for both: each record's schema is sent to the model wherever it is used",
			diag.Related{Span: f.NameSpan, Message: "record " + f.Name}))
	}
}

// shapeSeed seeds the hashes of names that group records by shape.
var shapeSeed = maphash.MakeSeed()
