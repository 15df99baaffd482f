// This file renders diagnostics as text for a terminal.
//
// Each diagnostic is a header line ("path:line:col: error[code]: message"),
// optionally followed by the first source line of its span with a caret
// underline, a "= help:" line for its Detail, and one "note:" line per
// related location. Source lines are shown with tabs expanded to four spaces
// and with control characters and invalid UTF-8 replaced by visible
// stand-ins, so the underline stays aligned and nothing written can be taken
// for a terminal escape sequence. Alignment counts every rune as one cell
// except a tab, which is four.

package diag

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxExcerpt is the longest source line, in bytes, shown whole; a longer one is
// shown as a window of excerptContext bytes on either side of the span.
const (
	maxExcerpt     = 200
	excerptContext = 60
)

// tabWidth is the number of spaces a tab expands to in source excerpts.
const tabWidth = 4

// ANSI escape sequences used when colour is on.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
	ansiBlue   = "\x1b[1;34m"
)

// TextOptions controls WriteTextOptions.
type TextOptions struct {
	// Color turns on ANSI colour and bold text.
	Color bool
	// Context prints, after each diagnostic's header, the source line where
	// its span starts with a caret underline.
	Context bool
	// Max, when more than 0, writes at most Max diagnostics, then one line
	// that says how many more there are, followed by MoreHint in
	// parentheses when it is set (how to see them all).
	Max      int
	MoreHint string
}

// UseColor reports whether diagnostics written to w should be coloured: w
// must be an *os.File that is a terminal (a character device), or a writer
// whose Unwrap() io.Writer method leads to one, the
// environment variable NO_COLOR must be unset or empty, and TERM must not be
// "dumb".
func UseColor(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, ok := fileInfo(w)
	return ok && fi.Mode()&os.ModeCharDevice != 0
}

// IsTerminal reports whether x (a reader or a writer, or one whose
// Unwrap() io.Writer method leads to one) is a terminal: a character
// device other than the null device.
func IsTerminal(x any) bool {
	fi, ok := fileInfo(x)
	if !ok || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return false
	}
	return true
}

// fileInfo describes the file x is, seen through writers that filter what
// they pass on (such as one that masks secrets) to the file they write to.
func fileInfo(x any) (os.FileInfo, bool) {
	for {
		u, ok := x.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		x = u.Unwrap()
	}
	f, ok := x.(*os.File)
	if !ok || f == nil {
		return nil, false
	}
	fi, err := f.Stat()
	return fi, err == nil
}

// WriteText writes the diagnostics in l, which belong to f, to w in the
// human-readable format, with source context and caret underlines, in
// colour if color is set. Diagnostics are written in the order of l; see
// List.Normalize. It is WriteTextOptions with Context set.
func WriteText(w io.Writer, f *File, l List, color bool) error {
	return WriteTextOptions(w, f, l, TextOptions{Color: color, Context: true})
}

// WriteTextOptions writes the diagnostics in l, which belong to f, to w in
// the human-readable format:
//
//	path:line:col: error[code]: message
//	   12 | (a)-[r]=>(b)
//	      |    ^^^^^^^^
//	   = help: detail text
//	path:line:col: note: related message
//
// Lines and columns are 1-based and count runes (see Position). The source
// line and underline appear only if opts.Context is set, the help line only
// if Detail is not empty, and the "[code]" part only if Code is not empty.
// An empty Path is shown as "<input>". A related location in another file is
// shown with that file's path, line and column. Without opts.Color the output
// contains no escape bytes. Everything is written with a single call to
// w.Write.
func WriteTextOptions(w io.Writer, f *File, l List, opts TextOptions) error {
	if f == nil {
		f = &File{}
	}
	p := textPrinter{f: f, color: opts.Color, path: displayPath(f.Path)}
	shown := l
	if opts.Max > 0 && len(l) > opts.Max {
		shown = l[:opts.Max]
	}
	for _, d := range shown {
		p.diagnostic(f.ResolveDiagnostic(d), opts.Context)
	}
	if more := len(l) - len(shown); more > 0 {
		what := "diagnostics"
		if more == 1 {
			what = "diagnostic"
		}
		fmt.Fprintf(&p.b, "%s: %d more %s not shown", p.path, more, what)
		if opts.MoreHint != "" {
			fmt.Fprintf(&p.b, " (%s)", opts.MoreHint)
		}
		p.b.WriteByte('\n')
	}
	_, err := io.WriteString(w, p.b.String())
	return err
}

// displayPath is how a file's path is shown: safe to print, and
// "<input>" when empty.
func displayPath(path string) string {
	if path == "" {
		return "<input>"
	}
	return clean(path, false)
}

// textPrinter accumulates the text output for one file.
type textPrinter struct {
	b     strings.Builder
	f     *File
	path  string
	color bool
}

// style writes s wrapped in the escape sequence esc and a reset, or just s
// without colour.
func (p *textPrinter) style(esc, s string) {
	if p.color && s != "" {
		p.b.WriteString(esc)
		p.b.WriteString(s)
		p.b.WriteString(ansiReset)
		return
	}
	p.b.WriteString(s)
}

// severityColor returns the escape sequence for s.
func severityColor(s Severity) string {
	switch s {
	case Error:
		return ansiRed
	case Warning:
		return ansiYellow
	case Info, Hint:
		return ansiBlue
	}
	return ansiBold
}

// location writes "path:line:col:" for the offset off of p's file.
func (p *textPrinter) location(off int) {
	p.locationIn(p.f, p.path, off)
}

// locationIn writes "path:line:col:" for the offset off of f, named path.
func (p *textPrinter) locationIn(f *File, path string, off int) {
	pos := f.OffsetPosition(off)
	p.style(ansiBold, path+":"+strconv.Itoa(pos.Line)+":"+strconv.Itoa(pos.Column)+":")
}

// diagnostic writes one diagnostic.
func (p *textPrinter) diagnostic(d Diagnostic, context bool) {
	col := severityColor(d.Severity)
	label := d.Severity.String()
	if d.Code != "" {
		label += "[" + clean(d.Code, false) + "]"
	}
	p.location(d.Span.Start)
	p.b.WriteByte(' ')
	p.style(col, label)
	p.b.WriteString(": ")
	p.b.WriteString(clean(d.Message, true))
	p.b.WriteByte('\n')

	if context {
		p.excerpt(d.Span, col)
	}
	if d.Detail != "" {
		p.b.WriteString("   = help: ")
		lines := strings.Split(clean(d.Detail, true), "\n")
		for i, line := range lines {
			if i > 0 {
				p.b.WriteString("           ")
			}
			p.b.WriteString(line)
			p.b.WriteByte('\n')
		}
	}
	for _, r := range d.Related {
		if r.Elsewhere(p.f) {
			p.locationIn(r.File, displayPath(r.File.Path), r.Span.Start)
		} else {
			p.location(r.Span.Start)
		}
		p.b.WriteByte(' ')
		p.style(ansiBold, "note")
		p.b.WriteString(": ")
		p.b.WriteString(clean(r.Message, true))
		p.b.WriteByte('\n')
	}
}

// excerpt writes the source line on which s starts and a caret line under
// the part of s on that line.
func (p *textPrinter) excerpt(s Span, col string) {
	f := p.f
	start := f.clamp(s.Start)
	end := max(start, f.clamp(s.End))
	line0 := f.OffsetLSP(start).Line
	lineStart, lineEnd := f.LineStart(line0), f.LineEnd(line0)
	end = min(end, lineEnd)
	line, at := f.LineText(line0+1), lineStart // line[i] is at offset at+i

	// A long line is shown as a window around the span.
	var src strings.Builder
	pad, width := 0, 0
	suffix := false
	if lineEnd-lineStart > maxExcerpt {
		from := max(lineStart, start-excerptContext)
		for from > lineStart && !utf8.RuneStart(line[from-at]) {
			from--
		}
		to := min(lineEnd, max(end, start+1)+excerptContext)
		for to < lineEnd && !utf8.RuneStart(line[to-at]) {
			to++
		}
		if from > lineStart {
			src.WriteString("…")
			pad++
		}
		suffix = to < lineEnd
		lineStart, lineEnd = from, to
		end = min(end, lineEnd)
	}
	for off := lineStart; off < lineEnd; {
		r, size := utf8.DecodeRune(line[off-at : lineEnd-at])
		cells := 1
		if r == '\t' {
			cells = tabWidth
			src.WriteString("    ")
		} else {
			src.WriteRune(visible(r, size))
		}
		switch {
		case off+size <= start:
			pad += cells
		case off < end:
			width += cells
		}
		off += size
	}
	width = max(width, 1)
	if suffix {
		src.WriteString("…")
	}

	num := strconv.Itoa(line0 + 1)
	gutter := strings.Repeat(" ", len(num))
	p.b.WriteString("   " + num + " |")
	if src.Len() > 0 {
		p.b.WriteByte(' ')
		p.b.WriteString(src.String())
	}
	p.b.WriteByte('\n')
	p.b.WriteString("   " + gutter + " | " + strings.Repeat(" ", pad))
	p.style(col, strings.Repeat("^", width))
	p.b.WriteByte('\n')
}

// visible returns what to show for the rune r, decoded from size bytes of
// source text: invalid UTF-8 and C1 control characters become U+FFFD, C0
// control characters and DEL become their Unicode control pictures
// (U+2400-U+2421), and everything else is itself.
func visible(r rune, size int) rune {
	switch {
	case r == utf8.RuneError && size == 1:
		return utf8.RuneError
	case r < 0x20:
		return 0x2400 + r
	case r == 0x7f:
		return 0x2421
	case r >= 0x80 && r < 0xa0:
		return utf8.RuneError
	}
	return r
}

// Visible returns s safe to print on a terminal: control characters other
// than tab and newline (the escapes that set a title or clear the screen
// among them) and invalid UTF-8 are replaced by visible characters, as in
// the source lines of diagnostics.
func Visible(s string) string { return clean(s, true) }

// clean makes s safe to print: control characters other than tab (and
// newline, if keepNewline is set) and invalid UTF-8 are replaced as by
// visible.
func clean(s string, keepNewline bool) string {
	keep := func(r rune, size int) bool {
		if r == '\t' || keepNewline && r == '\n' {
			return true
		}
		return !(r == utf8.RuneError && size == 1) && visible(r, size) == r
	}
	var b strings.Builder
	done := 0 // s[:done] has been copied to b
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !keep(r, size) {
			b.WriteString(s[done:i])
			b.WriteRune(visible(r, size))
			done = i + size
		}
		i += size
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}
