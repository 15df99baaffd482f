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

// Label is `:Name` or `::Name` (the separators mean the same).
type Label struct {
	Sep  Tok // ":" or "::"
	Name Tok // Symbol or Backtick
}

// Span returns the label's byte span, separator included.
func (l Label) Span() diag.Span { return diag.Span{Start: l.Sep.Start(), End: l.Name.End()} }

// LabelsSpan returns the span covering all labels of s (zero if it has none).
func (s *Subject) LabelsSpan() diag.Span {
	if len(s.Labels) == 0 {
		return diag.Span{}
	}
	return diag.Span{Start: s.Labels[0].Sep.Start(), End: s.Labels[len(s.Labels)-1].Name.End()}
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
		sep := tok(lex.Next())
		name := lex.Peek()
		if !isSymbol(name) && name.Type != Backtick {
			return unexpected(name, "a label name after '"+sep.Value+"'", "labels are names, e.g. :Person or ::String")
		}
		s.Labels = append(s.Labels, Label{Sep: sep, Name: symbolTok(lex.Next())})
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
