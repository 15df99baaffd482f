// The parse of a text, as every surface parses it.

package project

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// CodeBinaryFile is the code of the diagnostic given for a text that holds
// binary data rather than gram text.
const CodeBinaryFile = "binary-file"

// Parse parses the text of f as gram notation read alone, as gramc parse
// and a bindings file read it: as [parser.Parse] does, with the errors the
// parser defers to the compiler reported as the parser made them (see
// [parser.Document.Deferred]), since no language is read on top of the
// notation. A text of binary data (see [Binary]) is reported once, as
// such, and parsed as an empty file.
func Parse(f *diag.File) (*parser.Document, diag.List) {
	return alone(parseWith(f, parser.Parse))
}

// ParseSyntax is [Parse] for the syntax only, as [parser.ParseSyntax]
// parses it: without lowering or the gram-level checks of lowering.
func ParseSyntax(f *diag.File) (*parser.Document, diag.List) {
	return alone(parseWith(f, parser.ParseSyntax))
}

// alone adds to the diagnostics of doc, read as gram notation alone, the
// errors the parser deferred.
func alone(doc *parser.Document, diags diag.List) (*parser.Document, diag.List) {
	if errs := doc.Deferred(); len(errs) > 0 {
		diags = append(slices.Clip(diags), errs...).Sorted()
	}
	return doc, diags
}

// parseWith parses f with parse, but a text of binary data, by the rule of
// [Parse]: the document of a file the compiler reads, its deferred errors
// recorded for the compiler to report.
func parseWith(f *diag.File, parse func(*diag.File) (*parser.Document, diag.List)) (*parser.Document, diag.List) {
	if d, bin := Binary(f.Bytes()); bin {
		doc, _ := parse(diag.NewFile(f.Path, nil))
		return doc, diag.List{d}
	}
	return parse(f)
}

// Binary reports whether text is binary data rather than a text file (it
// holds a NUL byte, or more than one byte in eight of its start, and 8 at
// least, are not UTF-8: a short text with a Latin-1 letter or two is text,
// each such byte an error where it is), and if so returns the one
// diagnostic given for it, at the first byte that is not text.
func Binary(text []byte) (diag.Diagnostic, bool) {
	at, bin := binaryData(text)
	if !bin {
		return diag.Diagnostic{}, false
	}
	d := diag.Errorf(CodeBinaryFile, diag.Span{Start: at, End: at + 1}, "not a gram file (binary data)")
	d.Detail = "the file holds NUL bytes or bytes that are not UTF-8 text; give a .gram text file"
	return d, true
}

// binaryData reports whether text is binary data (see [Binary]), and if so
// where the first byte that is not text is.
func binaryData(text []byte) (int, bool) {
	sample := text[:min(len(text), 64<<10)]
	if bytes.IndexByte(sample, 0) < 0 && utf8.Valid(sample) {
		return 0, false // most text: no need to look rune by rune
	}
	first, invalid := -1, 0
	for i := 0; i < len(sample); {
		r, size := utf8.DecodeRune(sample[i:])
		if r == 0 {
			return i, true
		}
		if r == utf8.RuneError && size == 1 && !(i+utf8.UTFMax > len(sample) && len(sample) < len(text)) {
			if first < 0 {
				first = i
			}
			invalid++
		}
		i += size
	}
	if invalid >= 8 && invalid*8 > len(sample) {
		return first, true
	}
	return 0, false
}
