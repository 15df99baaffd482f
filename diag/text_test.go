package diag

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sampleText has a tab and a two-byte character before the arrow on line 2.
//
//	offsets: line 1 "x = 1" is 0..4, "\n" is 5; line 2 starts at 6 with
//	"\t" (6), "café" (7..11, é is 10..11), " := (a)" (12..18),
//	"-[r]=>" (19..24), "(b)" (25..27), "\n" (28); line 3 starts at 29.
const sampleText = "x = 1\n\tcafé := (a)-[r]=>(b)\n"

func sampleList() List {
	return List{
		{
			Severity: Error,
			Code:     "bad-arrow",
			Message:  `malformed arrow "-[r]=>"`,
			Detail:   "write -[r]-> for a directed relationship",
			Span:     Span{19, 25},
			Related:  []Related{{Span: Span{0, 1}, Message: "x is defined here"}},
		},
		{
			Severity: Warning,
			Code:     "long-span",
			Message:  "span crosses lines",
			Detail:   "line one\nline two",
			Span:     Span{2, 10},
		},
		{Severity: Info, Message: "end of line", Span: Span{5, 5}},
		{Severity: Hint, Code: "eof", Message: "end of file", Span: Span{29, 29}},
	}
}

func TestWriteTextPlain(t *testing.T) {
	f := NewFile("a.gram", []byte(sampleText))
	var buf bytes.Buffer
	if err := WriteText(&buf, f, sampleList(), false); err != nil {
		t.Fatal(err)
	}
	want := `a.gram:2:13: error[bad-arrow]: malformed arrow "-[r]=>"
   2 |     café := (a)-[r]=>(b)
     |                ^^^^^^
   = help: write -[r]-> for a directed relationship
a.gram:1:1: note: x is defined here
a.gram:1:3: warning[long-span]: span crosses lines
   1 | x = 1
     |   ^^^
   = help: line one
           line two
a.gram:1:6: info: end of line
   1 | x = 1
     |      ^
a.gram:3:1: hint[eof]: end of file
   3 |
     | ^
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteText mismatch (-want +got):\n%s", diff)
	}
	if bytes.IndexByte(buf.Bytes(), 0x1b) >= 0 {
		t.Error("output without colour contains an escape byte")
	}
}

func TestWriteTextColor(t *testing.T) {
	f := NewFile("a.gram", []byte(sampleText))
	var buf bytes.Buffer
	if err := WriteText(&buf, f, sampleList(), true); err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(
		"{B}", "\x1b[1m",
		"{R}", "\x1b[1;31m",
		"{Y}", "\x1b[1;33m",
		"{U}", "\x1b[1;34m",
		"{0}", "\x1b[0m",
	).Replace(`{B}a.gram:2:13:{0} {R}error[bad-arrow]{0}: malformed arrow "-[r]=>"
   2 |     café := (a)-[r]=>(b)
     |                {R}^^^^^^{0}
   = help: write -[r]-> for a directed relationship
{B}a.gram:1:1:{0} {B}note{0}: x is defined here
{B}a.gram:1:3:{0} {Y}warning[long-span]{0}: span crosses lines
   1 | x = 1
     |   {Y}^^^{0}
   = help: line one
           line two
{B}a.gram:1:6:{0} {U}info{0}: end of line
   1 | x = 1
     |      {U}^{0}
{B}a.gram:3:1:{0} {U}hint[eof]{0}: end of file
   3 |
     | {U}^{0}
`)
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteText mismatch (-want +got):\n%s", diff)
	}
}

func TestWriteTextNoContext(t *testing.T) {
	f := NewFile("a.gram", []byte(sampleText))
	var buf bytes.Buffer
	if err := WriteTextOptions(&buf, f, sampleList()[:2], TextOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `a.gram:2:13: error[bad-arrow]: malformed arrow "-[r]=>"
   = help: write -[r]-> for a directed relationship
a.gram:1:1: note: x is defined here
a.gram:1:3: warning[long-span]: span crosses lines
   = help: line one
           line two
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteTextOptions mismatch (-want +got):\n%s", diff)
	}
}

func TestWriteTextGutterWidth(t *testing.T) {
	text := strings.Repeat("\n", 11) + "(a)-->(b)\r\n"
	f := NewFile("wide.gram", []byte(text))
	l := List{Errorf("syntax-error", Span{14, 40}, "bad")}
	var buf bytes.Buffer
	if err := WriteText(&buf, f, l, false); err != nil {
		t.Fatal(err)
	}
	want := `wide.gram:12:4: error[syntax-error]: bad
   12 | (a)-->(b)
      |    ^^^^^^
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteText mismatch (-want +got):\n%s", diff)
	}
}

func TestWriteTextUnicodeSpans(t *testing.T) {
	// 😀 is one column wide; a span starting inside it covers the whole rune.
	text := "😀\t(é)\n"
	f := NewFile("", []byte(text))
	l := List{
		Errorf("a", Span{2, 2}, "inside"),
		Errorf("b", Span{5, 9}, "after tab"),
		Errorf("c", Span{-4, 100}, "out of range"),
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, f, l, false); err != nil {
		t.Fatal(err)
	}
	want := `<input>:1:1: error[a]: inside
   1 | 😀    (é)
     | ^
<input>:1:3: error[b]: after tab
   1 | 😀    (é)
     |      ^^^
<input>:1:1: error[c]: out of range
   1 | 😀    (é)
     | ^^^^^^^^
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteText mismatch (-want +got):\n%s", diff)
	}
}

func TestWriteTextSanitizes(t *testing.T) {
	text := "a\x1b[31mb\vc\xff\n"
	f := NewFile("x\x1b.gram", []byte(text))
	l := List{{
		Severity: Error,
		Code:     "c\x1b",
		Message:  "bad \x1b[2J name",
		Detail:   "\x9b",
		Span:     Span{8, 9},
		Related:  []Related{{Span: Span{0, 1}, Message: "\x07"}},
	}}
	var buf bytes.Buffer
	if err := WriteText(&buf, f, l, false); err != nil {
		t.Fatal(err)
	}
	if bytes.IndexByte(buf.Bytes(), 0x1b) >= 0 || bytes.Contains(buf.Bytes(), []byte("\u009b")) {
		t.Errorf("output contains an escape sequence:\n%q", buf.String())
	}
	want := "x\u241b.gram:1:9: error[c\u241b]: bad \u241b[2J name\n" +
		"   1 | a\u241b[31mb\u240bc\uFFFD\n" +
		"     |         ^\n" +
		"   = help: \uFFFD\n" +
		"x\u241b.gram:1:1: note: \u2407\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteText mismatch (-want +got):\n%s", diff)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken") }

func TestWriteTextError(t *testing.T) {
	f := NewFile("a.gram", nil)
	if err := WriteText(failWriter{}, f, List{Errorf("e", Span{}, "m")}, false); err == nil {
		t.Error("WriteText to a failing writer returned nil")
	}
}

func TestUseColor(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm-256color")
	if UseColor(&bytes.Buffer{}) {
		t.Error("UseColor(*bytes.Buffer) = true")
	}
	if UseColor((*os.File)(nil)) {
		t.Error("UseColor(nil *os.File) = true")
	}
	regular, err := os.Create(t.TempDir() + "/out.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	if UseColor(regular) {
		t.Error("UseColor(regular file) = true")
	}

	// /dev/null is a character device, like a terminal.
	dev, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no null device:", err)
	}
	defer dev.Close()
	if !UseColor(dev) {
		t.Error("UseColor(character device) = false")
	}
	t.Setenv("TERM", "dumb")
	if UseColor(dev) {
		t.Error("UseColor with TERM=dumb = true")
	}
	t.Setenv("TERM", "xterm")
	t.Setenv("NO_COLOR", "1")
	if UseColor(dev) {
		t.Error("UseColor with NO_COLOR=1 = true")
	}
}

// TestWriteTextRelatedElsewhere checks that a related location in another
// file is shown with that file's path, line and column.
func TestWriteTextRelatedElsewhere(t *testing.T) {
	a := NewFile("a.gram", []byte("(x)\n"))
	b := NewFile("dir/b.gram", []byte("\n\t(x)\n"))
	d := Errorf("duplicate-definition", Span{1, 2}, "x is also declared in another file")
	d.Related = []Related{{File: b, Span: Span{3, 4}, Message: "the other x"}}
	var buf bytes.Buffer
	if err := WriteTextOptions(&buf, a, List{d}, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `a.gram:1:2: error[duplicate-definition]: x is also declared in another file
dir/b.gram:2:3: note: the other x
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteText mismatch (-want +got):\n%s", diff)
	}
}

// TestResolveRelatedElsewhere checks that the span of a related location
// in another file is resolved by that file's positions, not the
// diagnostic's.
func TestResolveRelatedElsewhere(t *testing.T) {
	a := NewFile("a.gram", []byte("(x)\n"))
	b := NewFile("b.gram", []byte("(y) (x)\n"))
	// b's text is two segments: "(x)" at positions 100.. and "(y) " at 0..
	b.SetPositions(NewPositions([]Segment{{Pos: 0, Off: 0, Len: 4}, {Pos: 100, Off: 4, Len: 4}}))
	d := Errorf("c", Span{1, 2}, "m")
	d.Related = []Related{{File: b, Span: Span{101, 102}}, {Span: Span{0, 3}}}
	got := a.ResolveDiagnostic(d)
	if got.Related[0].Span != (Span{5, 6}) || got.Related[1].Span != (Span{0, 3}) || got.Span != (Span{1, 2}) {
		t.Errorf("resolved spans %v, %v, %v; want [1,2), [5,6), [0,3)", got.Span, got.Related[0].Span, got.Related[1].Span)
	}
	if d.Related[0].Span != (Span{101, 102}) {
		t.Error("ResolveDiagnostic changed its argument's related locations")
	}
}
