package grammar

import (
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"
)

// TestScannerIn: a scanner over the text from a line's start on, given the
// offset of that start, lexes the tokens, comments and lexical errors a
// scanner over the whole text lexes from there, at the same offsets.
func TestScannerIn(t *testing.T) {
	text := "(a {k: 1}) // one\n" +
		"(b \"open\n" +
		"(c) ~ # ?\n" +
		"[g | a, b] // two\n" +
		"(d {s: \"\xff\"})\n" +
		"```\nfenced\n```\n" +
		"(e .)\n"
	for off := 0; off < 2*len(text); off++ {
		fine := off >= len(text)
		if off%len(text) > 0 && text[off%len(text)-1] != '\n' {
			continue
		}
		off := off % len(text)
		whole, part := NewScannerAt(text, off, fine), NewScannerIn(text[off:], off, fine)
		a, b := scanAll(whole), scanAll(part)
		if !reflect.DeepEqual(a, b) || whole.FineFrom() != part.FineFrom() {
			t.Errorf("from %d: tokens %v, want %v", off, b, a)
		}
		if !reflect.DeepEqual(whole.Comments, part.Comments) {
			t.Errorf("from %d: comments %v, want %v", off, part.Comments, whole.Comments)
		}
		if !reflect.DeepEqual(whole.Diags, part.Diags) {
			t.Errorf("from %d: diagnostics %v, want %v", off, part.Diags, whole.Diags)
		}
		if part.Offset() != len(text) {
			t.Errorf("from %d: lexed to %d, want %d", off, part.Offset(), len(text))
		}
	}
	if n := strings.Count(text, "\n"); n < 5 {
		t.Fatal("the text is too short")
	}
}

func scanAll(s *Scanner) []lexer.Token {
	var out []lexer.Token
	for {
		t := s.Next()
		out = append(out, t)
		if t.Type == EOF {
			return out
		}
	}
}

// TestInspectTokensIn: the tokens and comments of a piece of a text,
// given its offset, stand at their offsets in the text.
func TestInspectTokensIn(t *testing.T) {
	text := "(a {k: 1}) // one\n[g | a, b] // two\n(c \"s\")\n"
	for start := 0; start < len(text); start++ {
		if start > 0 && text[start-1] != '\n' && text[start-1] != ' ' {
			continue
		}
		n := 0
		cs := InspectTokensIn(text[start:], start, func(tk Tok) bool {
			n++
			if tk.Start() < start || text[tk.Start():tk.End()] != tk.Value {
				t.Errorf("from %d: token %q at %d", start, tk.Value, tk.Start())
			}
			return true
		})
		for _, c := range cs {
			if !strings.HasPrefix(text[c.Span.Start:c.Span.End], "//") {
				t.Errorf("from %d: comment at %v is %q", start, c.Span, text[c.Span.Start:c.Span.End])
			}
		}
		if n == 0 && strings.TrimSpace(text[start:]) != "" {
			t.Errorf("from %d: no tokens", start)
		}
	}
}
