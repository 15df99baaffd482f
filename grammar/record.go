// Records and maps, parsed by hand through participle's Parseable interface.
//
//	record = "{" [ key (":" | "::") value { "," key (":" | "::") value } ] "}"
//	map    = "{" [ key ":" scalar { "," key ":" scalar } ] "}"      value position only

package grammar

import (
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
)

// Entry is one `key: value` (or `key :: value`) of a record or map.
type Entry struct {
	Key    Tok // Symbol, String (double quotes) or Backtick
	sepOff int32
	decl   bool // the separator is "::"
	Value  Value
}

// SepSpan returns the span of the separator.
func (e *Entry) SepSpan() diag.Span {
	n := 1
	if e.decl {
		n = 2
	}
	return diag.Span{Start: int(e.sepOff), End: int(e.sepOff) + n}
}

// Declared reports whether the separator is "::" rather than ":".
func (e *Entry) Declared() bool { return e.decl }

// Span returns the entry's byte span.
func (e *Entry) Span() diag.Span { return diag.Span{Start: e.Key.Start(), End: e.Value.Span().End} }

// KeyName returns the key's text with quotes removed.
func (e *Entry) KeyName() string { return e.Key.Text() }

// Record is `{ key: value, ... }` attached to a subject, or the file's header.
type Record struct {
	Entries    []Entry
	Start, End int32
}

// Span returns the record's byte span, braces included.
func (r *Record) Span() diag.Span { return diag.Span{Start: int(r.Start), End: int(r.End)} }

var tokenBuffers = sync.Pool{New: func() any { return &sliceTokens{toks: make([]lexer.Token, 0, 64)} }}

// parseRecordText parses the entries of a RecordText token (a record when record
// is true, else a map) and returns them with the offset after the closing '}'.
func parseRecordText(t *lexer.Token, record bool) ([]Entry, int, error) {
	st := tokenBuffers.Get().(*sliceTokens)
	defer tokenBuffers.Put(st)
	sc := Scanner{src: t.Value, base: t.Pos.Offset, fineFrom: -1}
	st.toks, st.i = st.toks[:0], 0
	for {
		x := sc.Next()
		st.toks = append(st.toks, x)
		if x.Type == EOF {
			break
		}
	}
	st.Next() // the '{'
	// Size the entries exactly: one per separator at the top of the braces.
	n, depth := 0, 0
	for i := range st.toks {
		if t := &st.toks[i]; t.Type == Punct {
			switch t.Value {
			case "{", "[":
				depth++
			case "}", "]":
				depth--
			case ":", "::":
				if depth == 1 {
					n++
				}
			}
		}
	}
	entries, end, err := parseEntries(st, record, n)
	clear(st.toks) // drop references to the text
	return entries, end, err
}

// Parse implements participle.Parseable.
func (r *Record) Parse(lex *lexer.PeekingLexer) error {
	return r.parse(lex)
}

func (r *Record) parse(lex tokens) error {
	t := lex.Peek()
	if !isOpenBrace(t) {
		return participle.NextMatch
	}
	lex.Next()
	r.Start = int32(t.Pos.Offset)
	entries, end, err := parseBraced(lex, t, true)
	r.Entries = entries
	r.End = int32(end)
	return err
}

// parseBraced parses the entries of a record or map whose opening token t (a
// RecordText, or a '{' followed by the entries on lex) was just read.
func parseBraced(lex tokens, t *lexer.Token, record bool) ([]Entry, int, error) {
	if t.Type == RecordText {
		return parseRecordText(t, record)
	}
	return parseEntries(lex, record, 0)
}

// parseEntries parses the inside of a record (record=true) or map after "{",
// through the closing "}". It returns the offset after "}".
func parseEntries(lex tokens, record bool, size int) ([]Entry, int, error) {
	what := "map"
	if record {
		what = "record"
	}
	var entries []Entry
	if size > 0 {
		entries = make([]Entry, 0, size)
	}
	t := lex.Peek()
	if isPunct(t, "}") {
		lex.Next()
		return entries, t.Pos.Offset + 1, nil
	}
	for {
		k := lex.Peek()
		switch {
		case isSymbol(k) || k.Type == Backtick:
		case k.Type == String && k.Value[0] == '"':
		case k.Type == String:
			return entries, 0, &SyntaxError{Span: TokenSpan(*k), Msg: "a key cannot be single-quoted",
				Detail: "quote keys with double quotes or backticks, e.g. \"my key\": 1"}
		default:
			detail := "keys are names (title), or quoted with \" or ` (\"my key\")"
			if isPunct(k, "}") {
				detail = "remove the trailing comma"
			}
			return entries, 0, unexpected(k, "a "+what+" key", detail)
		}
		key := symbolTok(lex.Next())
		sep := lex.Peek()
		if !(isPunct(sep, ":") || (isPunct(sep, "::"))) {
			return entries, 0, unexpected(sep, "':' after the key "+abbreviate(k.Value), "write key: value")
		}
		if !record && sep.Value == "::" {
			return entries, 0, &SyntaxError{Span: TokenSpan(*sep), Msg: "a map entry uses ':', not '::'",
				Detail: "'::' is for records attached to a subject; write key: value"}
		}
		st := lex.Next()
		e := Entry{Key: key, sepOff: int32(st.Pos.Offset), decl: st.Value == "::"}
		var err error
		if record {
			err = parseValue(lex, &e.Value)
		} else {
			err = parseScalar(lex, "a map", &e.Value)
		}
		if err != nil {
			return entries, 0, err
		}
		entries = append(entries, e)
		t := lex.Peek()
		if isPunct(t, ",") {
			lex.Next()
			continue
		}
		if isPunct(t, "}") {
			lex.Next()
			return entries, t.Pos.Offset + 1, nil
		}
		return entries, 0, unexpected(t, "',' or '}' in the "+what, "separate entries with commas and close the "+what+" with }")
	}
}
