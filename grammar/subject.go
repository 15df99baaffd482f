// Subjects and labels, parsed by hand through participle's Parseable
// interface.
//
//	subject = ident [ labels ] [ record ] | labels [ record ] | record
//	ident   = SYMBOL | BACKTICK_NAME | INTEGER
//	labels  = label { label } ;  label = ( ":" | "::" ) ( SYMBOL | BACKTICK_NAME )

package grammar

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
)

// Subject is an identifier, labels and a record, each optional but in this order and
// at least one present.
type Subject struct {
	Ident      Tok // Symbol, Backtick or Integer; zero when absent
	Labels     []Label
	Record     *Record
	Start, End int32
}

// Span returns the subject's byte span.
func (s *Subject) Span() diag.Span { return diag.Span{Start: int(s.Start), End: int(s.End)} }

// Label is `:Name` or `::Name` (the separators mean the same). Of the
// separator only its offset and whether it is "::" are kept (see [Label.Sep]),
// which makes a label 32 bytes.
type Label struct {
	Name   Tok // Symbol or Backtick
	sepOff int32
	double bool // the separator is "::"
}

// Sep returns the separator's token, ":" or "::".
func (l Label) Sep() Tok {
	if l.double {
		return Tok{Value: "::", Off: l.sepOff, Type: Punct}
	}
	return Tok{Value: ":", Off: l.sepOff, Type: Punct}
}

// Span returns the label's byte span, separator included.
func (l Label) Span() diag.Span { return diag.Span{Start: int(l.sepOff), End: l.Name.End()} }

// LabelsSpan returns the span covering all labels of s (zero if it has none).
func (s *Subject) LabelsSpan() diag.Span {
	if len(s.Labels) == 0 {
		return diag.Span{}
	}
	return diag.Span{Start: int(s.Labels[0].sepOff), End: s.Labels[len(s.Labels)-1].Name.End()}
}

func isIdent(t *lexer.Token) bool {
	return isSymbol(t) || t.Type == Backtick || t.Type == Integer
}

// Parse implements participle.Parseable.
func (s *Subject) Parse(lex *lexer.PeekingLexer) error { return s.parse(lex) }

func (s *Subject) parse(lex tokens) error {
	t := lex.Peek()
	start := t.Pos.Offset
	end := -1
	if isIdent(t) {
		s.Ident = symbolTok(lex.Next())
		end = s.Ident.End()
		t = lex.Peek()
	}
	for isPunct(t, ":") || isPunct(t, "::") {
		sep := lex.Next()
		name := lex.Peek()
		if !isSymbol(name) && name.Type != Backtick {
			return unexpected(name, "a label name after '"+sep.Value+"'", "labels are names, e.g. :Person or ::String")
		}
		s.Labels = append(s.Labels, Label{Name: symbolTok(lex.Next()), sepOff: int32(sep.Pos.Offset), double: len(sep.Value) == 2})
		end = s.Labels[len(s.Labels)-1].Name.End()
		t = lex.Peek()
	}
	if isOpenBrace(t) {
		r := &Record{}
		if err := r.parse(lex); err != nil {
			return err
		}
		s.Record = r
		end = int(r.End)
		t = lex.Peek()
	}
	if end < 0 {
		return participle.NextMatch
	}
	s.Start, s.End = int32(start), int32(end)
	// Out-of-order parts get a clear message here rather than a generic one later.
	switch {
	case isIdent(t) && (s.Labels != nil || s.Record != nil):
		return &SyntaxError{Span: TokenSpan(*t), Msg: "the identifier must come first in a subject",
			Detail: "write identifier, then labels, then record: (a:Label {k: 1})"}
	case (isPunct(t, ":") || isPunct(t, "::")) && s.Record != nil:
		return &SyntaxError{Span: TokenSpan(*t), Msg: "labels must come before the record",
			Detail: "write identifier, then labels, then record: (a:Label {k: 1})"}
	}
	return nil
}
