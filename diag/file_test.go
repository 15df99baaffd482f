package diag

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// offsetCase is one offset of one text with the positions it maps to. back
// is the offset that both positions map back to.
type offsetCase struct {
	name string
	text string
	off  int
	pos  Position
	lsp  LSPPosition
	back int
}

var offsetCases = []offsetCase{
	{"empty file", "", 0, Position{1, 1}, LSPPosition{0, 0}, 0},
	{"empty file negative offset", "", -3, Position{1, 1}, LSPPosition{0, 0}, 0},
	{"empty file past end", "", 7, Position{1, 1}, LSPPosition{0, 0}, 0},

	{"no newline start", "abc", 0, Position{1, 1}, LSPPosition{0, 0}, 0},
	{"no newline middle", "abc", 2, Position{1, 3}, LSPPosition{0, 2}, 2},
	{"no newline end of file", "abc", 3, Position{1, 4}, LSPPosition{0, 3}, 3},
	{"past end of file clamps", "abc", 10, Position{1, 4}, LSPPosition{0, 3}, 3},

	{"LF at newline", "ab\ncd", 2, Position{1, 3}, LSPPosition{0, 2}, 2},
	{"LF second line start", "ab\ncd", 3, Position{2, 1}, LSPPosition{1, 0}, 3},
	{"LF end of file", "ab\ncd", 5, Position{2, 3}, LSPPosition{1, 2}, 5},
	{"trailing newline end of file", "ab\n", 3, Position{2, 1}, LSPPosition{1, 0}, 3},
	{"empty lines", "\n\n\n", 2, Position{3, 1}, LSPPosition{2, 0}, 2},

	{"CRLF the CR is end of line", "ab\r\ncd\r\n", 2, Position{1, 3}, LSPPosition{0, 2}, 2},
	{"CRLF the LF is end of line", "ab\r\ncd\r\n", 3, Position{1, 3}, LSPPosition{0, 2}, 2},
	{"CRLF next line", "ab\r\ncd\r\n", 4, Position{2, 1}, LSPPosition{1, 0}, 4},
	{"CRLF second line end", "ab\r\ncd\r\n", 6, Position{2, 3}, LSPPosition{1, 2}, 6},
	{"CRLF end of file", "ab\r\ncd\r\n", 8, Position{3, 1}, LSPPosition{2, 0}, 8},
	{"CRLF empty line", "\r\n\r\n", 2, Position{2, 1}, LSPPosition{1, 0}, 2},
	{"CRLF after non-ASCII", "é\r\nx", 2, Position{1, 2}, LSPPosition{0, 1}, 2},
	{"lone CR ends a line", "a\rb", 2, Position{2, 1}, LSPPosition{1, 0}, 2},
	{"lone CR is the end of its line", "a\rb", 1, Position{1, 2}, LSPPosition{0, 1}, 1},
	{"lone CR at end of file", "a\r", 2, Position{2, 1}, LSPPosition{1, 0}, 2},
	{"lone CRs", "\r\rx", 2, Position{3, 1}, LSPPosition{2, 0}, 2},

	{"tab is one column", "\tx", 1, Position{1, 2}, LSPPosition{0, 1}, 1},
	{"after two tabs", "\t\tx", 3, Position{1, 4}, LSPPosition{0, 3}, 3},

	{"2-byte before", "aéb", 1, Position{1, 2}, LSPPosition{0, 1}, 1},
	{"2-byte middle", "aéb", 2, Position{1, 2}, LSPPosition{0, 1}, 1},
	{"2-byte after", "aéb", 3, Position{1, 3}, LSPPosition{0, 2}, 3},
	{"2-byte end of file", "aéb", 4, Position{1, 4}, LSPPosition{0, 3}, 4},
	{"3-byte after", "€x", 3, Position{1, 2}, LSPPosition{0, 1}, 3},
	{"3-byte middle 1", "€x", 1, Position{1, 1}, LSPPosition{0, 0}, 0},
	{"3-byte middle 2", "€x", 2, Position{1, 1}, LSPPosition{0, 0}, 0},
	{"3-byte on second line", "ab\nc€d", 7, Position{2, 3}, LSPPosition{1, 2}, 7},

	{"astral after", "😀x", 4, Position{1, 2}, LSPPosition{0, 2}, 4},
	{"astral middle", "😀x", 2, Position{1, 1}, LSPPosition{0, 0}, 0},
	{"astral last byte", "😀x", 3, Position{1, 1}, LSPPosition{0, 0}, 0},
	{"astral end of file", "😀x", 5, Position{1, 3}, LSPPosition{0, 3}, 5},
	{"two astrals", "a😀😀b", 9, Position{1, 4}, LSPPosition{0, 5}, 9},
	{"mixed widths", "é€😀.", 9, Position{1, 4}, LSPPosition{0, 4}, 9},

	{"invalid byte", "a\xffb", 2, Position{1, 3}, LSPPosition{0, 2}, 2},
	{"after invalid byte", "a\xffb", 3, Position{1, 4}, LSPPosition{0, 3}, 3},
	{"truncated sequence counts per byte", "\xe2\x82x", 2, Position{1, 3}, LSPPosition{0, 2}, 2},
	{"truncated sequence end", "\xe2\x82x", 3, Position{1, 4}, LSPPosition{0, 3}, 3},
	{"encoded surrogate is three bytes", "\xed\xa0\x80x", 3, Position{1, 4}, LSPPosition{0, 3}, 3},
	{"valid U+FFFD is one rune", "\uFFFDx", 3, Position{1, 2}, LSPPosition{0, 1}, 3},
}

func TestOffsetConversions(t *testing.T) {
	for _, tc := range offsetCases {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFile("t.gram", []byte(tc.text))
			if got := f.OffsetPosition(tc.off); got != tc.pos {
				t.Errorf("OffsetPosition(%d) = %v, want %v", tc.off, got, tc.pos)
			}
			if got := f.OffsetLSP(tc.off); got != tc.lsp {
				t.Errorf("OffsetLSP(%d) = %v, want %v", tc.off, got, tc.lsp)
			}
			if got := f.PositionOffset(tc.pos); got != tc.back {
				t.Errorf("PositionOffset(%v) = %d, want %d", tc.pos, got, tc.back)
			}
			if got := f.LSPOffset(tc.lsp); got != tc.back {
				t.Errorf("LSPOffset(%v) = %d, want %d", tc.lsp, got, tc.back)
			}
		})
	}
}

func TestPositionOffsetClamps(t *testing.T) {
	f := NewFile("t.gram", []byte("ab\r\ncé\nxyz"))
	tests := []struct {
		pos  Position
		want int
	}{
		{Position{1, 0}, 0},
		{Position{1, -4}, 0},
		{Position{1, 3}, 2},
		{Position{1, 99}, 2}, // before the \r
		{Position{2, 3}, 7},
		{Position{2, 99}, 7},
		{Position{3, 4}, 11},
		{Position{3, 99}, 11},
		{Position{0, 5}, 0},
		{Position{4, 1}, 11},
	}
	for _, tc := range tests {
		if got := f.PositionOffset(tc.pos); got != tc.want {
			t.Errorf("PositionOffset(%v) = %d, want %d", tc.pos, got, tc.want)
		}
	}
}

func TestLSPOffsetClamps(t *testing.T) {
	f := NewFile("t.gram", []byte("a😀b\r\n€\n"))
	// Offsets: a=0 😀=1..4 b=5 \r=6 \n=7 €=8..10 \n=11, end=12.
	tests := []struct {
		pos  LSPPosition
		want int
	}{
		{LSPPosition{0, 0}, 0},
		{LSPPosition{0, -1}, 0},
		{LSPPosition{0, 1}, 1},
		{LSPPosition{0, 2}, 1}, // between the surrogates: start of the rune
		{LSPPosition{0, 3}, 5},
		{LSPPosition{0, 4}, 6},
		{LSPPosition{0, 5}, 6}, // past the end of the line: before \r\n
		{LSPPosition{0, 1000}, 6},
		{LSPPosition{1, 1}, 11},
		{LSPPosition{1, 7}, 11},
		{LSPPosition{2, 0}, 12},
		{LSPPosition{2, 3}, 12},
		{LSPPosition{3, 0}, 12},
		{LSPPosition{-1, 4}, 0},
	}
	for _, tc := range tests {
		if got := f.LSPOffset(tc.pos); got != tc.want {
			t.Errorf("LSPOffset(%v) = %d, want %d", tc.pos, got, tc.want)
		}
	}
}

func TestLines(t *testing.T) {
	tests := []struct {
		text   string
		lines  []string
		starts []int
	}{
		{"", []string{""}, []int{0}},
		{"abc", []string{"abc"}, []int{0}},
		{"abc\n", []string{"abc", ""}, []int{0, 4}},
		{"a\r\nb\r\n", []string{"a", "b", ""}, []int{0, 3, 6}},
		// A lone "\r" ends a line, as the Language Server Protocol has it.
		{"a\rb\n\nc", []string{"a", "b", "", "c"}, []int{0, 2, 4, 5}},
		{"x\r", []string{"x", ""}, []int{0, 2}},
		{"\r\r\n\n", []string{"", "", "", ""}, []int{0, 1, 3, 4}},
		{"\r\n", []string{"", ""}, []int{0, 2}},
	}
	for _, tc := range tests {
		f := NewFile("t.gram", []byte(tc.text))
		if got := f.LineCount(); got != len(tc.lines) {
			t.Errorf("%q: LineCount() = %d, want %d", tc.text, got, len(tc.lines))
		}
		var lines []string
		var starts []int
		for i := 1; i <= f.LineCount(); i++ {
			lines = append(lines, string(f.LineText(i)))
			starts = append(starts, f.LineStart(i-1))
		}
		if diff := cmp.Diff(tc.lines, lines); diff != "" {
			t.Errorf("%q: LineText mismatch (-want +got):\n%s", tc.text, diff)
		}
		if diff := cmp.Diff(tc.starts, starts); diff != "" {
			t.Errorf("%q: LineStart mismatch (-want +got):\n%s", tc.text, diff)
		}
		if got := f.LineText(0); got != nil {
			t.Errorf("%q: LineText(0) = %q, want nil", tc.text, got)
		}
		if got := f.LineText(f.LineCount() + 1); got != nil {
			t.Errorf("%q: LineText(past end) = %q, want nil", tc.text, got)
		}
		if got := f.LineStart(-1); got != 0 {
			t.Errorf("%q: LineStart(-1) = %d, want 0", tc.text, got)
		}
		if got := f.LineStart(f.LineCount()); got != len(tc.text) {
			t.Errorf("%q: LineStart(past end) = %d, want %d", tc.text, got, len(tc.text))
		}
	}
}

func TestLineTextDoesNotShareCapacity(t *testing.T) {
	f := NewFile("t.gram", []byte("ab\ncd"))
	line := f.LineText(1)
	_ = append(line, 'X')
	if string(f.Bytes()) != "ab\ncd" {
		t.Errorf("appending to LineText changed Text to %q", f.Bytes())
	}
}

// naivePosition computes the Position and LSPPosition of off by scanning the
// text from the start, as a reference for the indexed implementation.
func naivePosition(text []byte, off int) (Position, LSPPosition) {
	off = max(0, min(off, len(text)))
	line, start := 0, 0
	for i := range off {
		// "\n", "\r\n" and a lone "\r" end a line.
		if text[i] == '\n' || text[i] == '\r' && (i+1 >= len(text) || text[i+1] != '\n') {
			line, start = line+1, i+1
		}
	}
	end := len(text)
	if i := strings.IndexAny(string(text[start:]), "\r\n"); i >= 0 {
		end = start + i
	}
	off = min(off, end)
	runes, units := 0, 0
	for p := start; p < off; {
		r, size := utf8.DecodeRune(text[p:end])
		if p+size > off {
			break
		}
		p += size
		runes++
		units++
		if r >= 0x10000 {
			units++
		}
	}
	return Position{line + 1, runes + 1}, LSPPosition{line, units}
}

// checkAllOffsets compares every offset of text against naivePosition and
// checks that converting back and forth is stable.
func checkAllOffsets(t *testing.T, text []byte) {
	t.Helper()
	f := NewFile("t.gram", text)
	for off := -1; off <= len(text)+1; off++ {
		wantPos, wantLSP := naivePosition(text, off)
		pos, lsp := f.OffsetPosition(off), f.OffsetLSP(off)
		if pos != wantPos || lsp != wantLSP {
			t.Fatalf("%q offset %d: got %v %v, want %v %v", text, off, pos, lsp, wantPos, wantLSP)
		}
		back := f.PositionOffset(pos)
		if back > max(off, 0) || f.OffsetPosition(back) != pos {
			t.Fatalf("%q offset %d: PositionOffset(%v) = %d does not map back", text, off, pos, back)
		}
		if lspBack := f.LSPOffset(lsp); lspBack != back {
			t.Fatalf("%q offset %d: LSPOffset(%v) = %d, PositionOffset(%v) = %d", text, off, lsp, lspBack, pos, back)
		}
	}
}

func TestAgainstNaive(t *testing.T) {
	texts := []string{
		"",
		"\n",
		"hello\nworld\n",
		"a\r\nb\rc\r\n\r\n",
		"\t\té€😀\n😀😀\r\n\xff\xfe\xe2\x82\n",
		"ascii prefix then é and more\nsecond 😀 line\n\nlast",
		"\xf0\x9f\x98", // truncated astral
		"é\r",
		// Long lines, counted from marks: astral runes, invalid bytes and
		// a truncated rune across the marks, and CRLF.
		"é" + strings.Repeat("ab😀€\xff", 300) + "\r\nshort\n" + strings.Repeat("x", 700) + "é" + strings.Repeat("😀", 400) + "\xf0\x9f",
	}
	for _, text := range texts {
		checkAllOffsets(t, []byte(text))
	}
}

func FuzzOffsets(f *testing.F) {
	for _, tc := range offsetCases {
		f.Add([]byte(tc.text))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		checkAllOffsets(t, text)
	})
}

func TestConcurrentIndex(t *testing.T) {
	text := []byte(strings.Repeat("abc é 😀\r\n", 1000))
	f := NewFile("t.gram", text)
	want, _ := naivePosition(text, len(text)/2)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := f.OffsetPosition(len(text) / 2); got != want {
				t.Errorf("OffsetPosition = %v, want %v", got, want)
			}
			_ = f.LineCount()
		})
	}
	wg.Wait()
}

func TestZeroValueFile(t *testing.T) {
	f := &File{Path: "z.gram"}
	if got, want := f.OffsetPosition(2), (Position{1, 1}); got != want || f.LineCount() != 1 || len(f.Bytes()) != 0 {
		t.Errorf("OffsetPosition(2) = %v, want %v; %d lines, %q", got, want, f.LineCount(), f.Bytes())
	}
}

func TestSpan(t *testing.T) {
	s := Span{3, 6}
	empty := Span{4, 4}
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{"contains start", s.Contains(3), true},
		{"contains middle", s.Contains(5), true},
		{"excludes end", s.Contains(6), false},
		{"excludes before", s.Contains(2), false},
		{"empty contains its start", empty.Contains(4), true},
		{"empty excludes others", empty.Contains(5), false},
		{"covers itself", s.Covers(s), true},
		{"covers inner", s.Covers(Span{4, 5}), true},
		{"covers empty inside", s.Covers(empty), true},
		{"covers empty at end", s.Covers(Span{6, 6}), true},
		{"not overlapping left", s.Covers(Span{2, 4}), false},
		{"not overlapping right", s.Covers(Span{5, 7}), false},
		{"empty does not cover wider", empty.Covers(s), false},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if got := s.Len(); got != 3 {
		t.Errorf("Len() = %d, want 3", got)
	}
	if got := (Span{5, 2}).Len(); got != 0 {
		t.Errorf("Len() of reversed span = %d, want 0", got)
	}
	if got := s.String(); got != "[3,6)" {
		t.Errorf("String() = %q", got)
	}
	if got := (Position{3, 7}).String(); got != "3:7" {
		t.Errorf("Position.String() = %q", got)
	}
}

func TestLSPRange(t *testing.T) {
	f := NewFile("t.gram", []byte("😀ab\ncd"))
	start, end := f.LSPRange(Span{4, 8})
	if want := (LSPPosition{0, 2}); start != want {
		t.Errorf("start = %v, want %v", start, want)
	}
	if want := (LSPPosition{1, 1}); end != want {
		t.Errorf("end = %v, want %v", end, want)
	}
	start, end = f.LSPRange(Span{6, 2})
	if start != end || start != (LSPPosition{0, 4}) {
		t.Errorf("reversed span: got %v %v, want both {0 4}", start, end)
	}
}

func BenchmarkOffsetPosition(b *testing.B) {
	const size = 1 << 20
	var sb strings.Builder
	for i := 0; sb.Len() < size; i++ {
		fmt.Fprintf(&sb, "(n%d:Person {name: 'person number %d'})-[:KNOWS]->(m%d)\n", i, i, i+1)
	}
	text := []byte(sb.String()[:size])
	f := NewFile("big.gram", text)
	f.OffsetPosition(0) // build the index outside the timed loop
	off := 0
	for b.Loop() {
		f.OffsetPosition(off)
		off = (off + 7919) % size
	}
}
