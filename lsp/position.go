// Conversions between the toolchain's positions, byte offsets and LSP
// positions (0-based lines, UTF-16 columns), and between document URIs and
// file paths. They happen only here, at the protocol boundary; diag.File does
// the UTF-16 and CRLF arithmetic. The spans of a version's syntax, program
// and diagnostics are positions, which are byte offsets only in a version
// parsed whole (see diag.Positions): rangeOf and positionOf take positions,
// posOf gives them; offsetOf and spanOf give byte offsets, for work on the
// text itself.

package lsp

import (
	"net/url"
	"path/filepath"
	"runtime"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/gramlang/gram/diag"
)

// offsetOf returns the byte offset of an LSP position in f. Positions past
// the end of a line or of the file are clamped.
func offsetOf(f *diag.File, p protocol.Position) int {
	return f.LSPOffset(diag.LSPPosition{Line: int(p.Line), Character: int(p.Character)})
}

// posOf returns the position (see diag.Positions) of an LSP position in f.
func posOf(f *diag.File, p protocol.Position) int { return f.Pos(offsetOf(f, p)) }

// positionOf returns the LSP position of a position of f.
func positionOf(f *diag.File, pos int) protocol.Position {
	p := f.OffsetLSP(f.Offset(pos))
	return protocol.Position{Line: uint32(p.Line), Character: uint32(p.Character)}
}

// rangeOf returns the LSP range of a span of positions of f.
func rangeOf(f *diag.File, s diag.Span) protocol.Range { return byteRangeOf(f, f.Resolve(s)) }

// byteRangeOf returns the LSP range of a span of byte offsets of f.
func byteRangeOf(f *diag.File, s diag.Span) protocol.Range {
	a, b := f.LSPRange(s)
	return protocol.Range{
		Start: protocol.Position{Line: uint32(a.Line), Character: uint32(a.Character)},
		End:   protocol.Position{Line: uint32(b.Line), Character: uint32(b.Character)},
	}
}

// posSpan returns a span of byte offsets of f as positions.
func posSpan(f *diag.File, s diag.Span) diag.Span {
	return diag.Span{Start: f.Pos(s.Start), End: f.Pos(s.End)}
}

// spanOf returns the byte span of an LSP range in f.
func spanOf(f *diag.File, r protocol.Range) diag.Span {
	a, b := offsetOf(f, r.Start), offsetOf(f, r.End)
	return diag.Span{Start: min(a, b), End: max(a, b)}
}

// uriPath returns the file path of a file: URI, or "" for other schemes.
func uriPath(u protocol.DocumentURI) string {
	p, err := url.Parse(string(u))
	if err != nil || p.Scheme != "file" {
		return ""
	}
	path := p.Path
	if runtime.GOOS == "windows" && len(path) >= 3 && path[0] == '/' && path[2] == ':' {
		path = path[1:]
	}
	return filepath.FromSlash(path)
}

// pathURI returns the file: URI of a path.
func pathURI(path string) protocol.DocumentURI {
	return uri.File(path)
}

// displayPath names a document in diagnostics and logs: its path, or its URI
// when it is not a file.
func displayPath(u protocol.DocumentURI) string {
	if p := uriPath(u); p != "" {
		return p
	}
	return strings.TrimSpace(string(u))
}
