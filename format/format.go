package format

import (
	"bytes"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/parser"
)

// Format returns src formatted in the canonical style (see the package
// documentation). A source with syntax errors is not formatted: Format then
// returns src itself and the errors.
func Format(src []byte) ([]byte, diag.List) {
	b, items, diags := prepare(src)
	if diags.HasErrors() {
		return src, diags
	}
	p := newPrinter(LineEnding(src), len(src)+len(src)/8+16)
	b.document(items, len(src), p)
	p.finish()
	if bytes.HasPrefix(src, utf8BOM) && !bytes.HasPrefix(p.out, utf8BOM) {
		// A byte order mark at the start is kept, as editors saved it.
		p.out = append(append(make([]byte, 0, len(utf8BOM)+len(p.out)), utf8BOM...), p.out...)
	}
	return p.out, diags
}

// utf8BOM is the UTF-8 byte order mark.
var utf8BOM = []byte("\uFEFF")

// FormatRange formats only the top-level items (the header record and the
// top-level patterns) of src that intersect r, with the comments between and
// inside them, and an end-of-line comment after the last one. An empty r
// selects the item it touches. The result is at most one edit, replacing the
// selected items, from the start of the first one's line, by their formatted
// text; there is no edit when nothing intersects r or the items are already
// formatted. Items elsewhere in src may have syntax errors; when an error lies
// within the selected items, FormatRange returns no edit and the errors.
func FormatRange(src []byte, r diag.Span) ([]diag.Edit, diag.List) {
	b, items, diags := prepare(src)
	first, last := -1, -1
	for i, it := range items {
		if it.start < r.End && r.Start < it.end || r.Start == r.End && it.start <= r.Start && r.Start <= it.end {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return nil, nil
	}
	start, end := items[first].start, items[last].end
	// An end-of-line comment after the last item belongs to it.
	if i := skipBlanks(src, end); i+1 < len(src) && src[i] == '/' && src[i+1] == '/' {
		for _, c := range b.comments {
			if c.Span.Start == i {
				end = c.Span.End
				break
			}
		}
	}
	var errs diag.List
	for _, d := range diags {
		if d.Severity == diag.Error && d.Span.Start < end && start <= d.Span.End {
			errs = append(errs, d)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	// Replace from the start of the line when only white space comes before
	// the first item, else from the end of the code before it, on a new line.
	from := start
	for from > 0 && (src[from-1] == ' ' || src[from-1] == '\t') {
		from--
	}
	nl := LineEnding(src)
	var out bytes.Buffer
	if from > 0 && src[from-1] != '\n' {
		out.WriteString(nl)
	}
	// Replace to the end of the line when only white space follows, else up
	// to the code after it, which then starts a new line.
	to := skipBlanks(src, end)
	codeAfter := to < len(src) && src[to] != '\n'
	if !codeAfter {
		to = end
		for to < len(src) && src[to] != '\n' {
			to++
		}
		if to > end && src[to-1] == '\r' && to < len(src) {
			to--
		}
	}

	b.comments = trimComments(b.comments, start, end)
	b.ci = 0
	p := newPrinter(nl, end-start+16)
	b.document(items[first:last+1], end, p)
	p.finish()
	text := bytes.TrimSuffix(p.out, []byte(nl))
	out.Write(text)
	if codeAfter {
		out.WriteString(nl)
	}
	if bytes.Equal(out.Bytes(), src[from:to]) {
		return nil, nil
	}
	return []diag.Edit{{Span: diag.Span{Start: from, End: to}, NewText: out.String()}}, nil
}

// prepare parses src and returns a builder over it, the top-level items and the
// syntax diagnostics. Maps inside arrays (parser.CodeNestedMap) are not gram
// notation but parse into a complete tree, which is formatted as written
// (the agent language reads them in the older notation of record
// parameters): the parser defers them (see parser.Document.Deferred), so
// they do not stop formatting.
func prepare(src []byte) (*builder, []item, diag.List) {
	f := diag.NewFile("", src)
	doc, diags := parser.ParseSyntax(f)
	diags = diags.Sorted()
	if len(doc.Bad) > 0 && !diags.HasErrors() {
		for _, s := range doc.Bad {
			diags.Add(diag.Errorf(grammar.CodeSyntaxError, s, "syntax error"))
		}
	}
	items := make([]item, 0, len(doc.Patterns())+1)
	if h := doc.Header; h != nil {
		items = append(items, item{start: int(h.Start), end: int(h.End), header: h})
	}
	for _, p := range doc.Patterns() {
		s := p.Span()
		items = append(items, item{start: s.Start, end: s.End, pattern: p})
	}
	return &builder{src: f.Source(), comments: doc.Comments}, items, diags
}

// trimComments returns the comments that lie within [start, end).
func trimComments(cs []grammar.Comment, start, end int) []grammar.Comment {
	i := 0
	for i < len(cs) && cs[i].Span.Start < start {
		i++
	}
	j := i
	for j < len(cs) && cs[j].Span.Start < end {
		j++
	}
	return cs[i:j]
}

// skipBlanks returns the offset of the first byte at or after off that is not
// a space, a tab or a carriage return.
func skipBlanks(src []byte, off int) int {
	for off < len(src) && (src[off] == ' ' || src[off] == '\t' || src[off] == '\r') {
		off++
	}
	return off
}

// LineEnding returns the line ending of src's first line: "\r\n" or "\n".
func LineEnding(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}
