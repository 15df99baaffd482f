// Package diag holds source positions and diagnostics for the gram toolchain.
//
// Every other part of the toolchain (the parser, the compiler, the gramc
// command and the language server) reports problems through this package, and
// it depends on nothing but the standard library.
//
// # Offsets are the truth
//
// A location in a source text is a byte offset into the text of a [File]
// ([File.Bytes]), and a range is a [Span], a half-open byte range
// [Start, End). Producers of diagnostics
// only ever deal in offsets. Line and column numbers are derived on demand,
// when a diagnostic is shown, from a line index that a [File] builds the
// first time it is asked for one:
//
//   - [Position] is for people: a 1-based line and a 1-based column counted
//     in Unicode code points, as printed by [WriteText]. See
//     [File.OffsetPosition] and [File.PositionOffset].
//   - [LSPPosition] is for the Language Server Protocol: a 0-based line and a
//     0-based character counted in UTF-16 code units, as used by [WriteJSON]
//     and editors. See [File.OffsetLSP] and [File.LSPOffset].
//
// Lines end at "\n", and a "\r\n" pair counts as a single line end. A lone
// "\r" is an ordinary character. Invalid UTF-8 bytes count as one code point
// (and one UTF-16 unit) each, so every byte sequence has well-defined
// positions.
//
// # Diagnostics
//
// A [Diagnostic] has a [Severity], a stable kebab-case code, a short message,
// an optional detail telling how to fix the problem, a [Span], related
// locations ([Related], in its own file or another: a position knows its
// file) and suggested [Fix]es. [Errorf] and [Warningf] build the common
// cases. A [List] collects diagnostics; [List.Normalize] sorts them,
// removes duplicates and limits how many are shown.
//
// # Output
//
// [WriteText] renders diagnostics for a terminal, with the offending source
// line and a caret underline, optionally in colour (see [UseColor]).
// [WriteJSON] writes a stable machine-readable report whose ranges use
// [LSPPosition]s; [ToJSON] exposes the same conversion for other writers.
// [WriteSARIF] writes a SARIF 2.1.0 log for code-scanning UIs.
//
// # Entry points
//
// [NewFile] for a source text; [Errorf], [Warningf], [Infof] and [Hintf] for
// diagnostics, collected in a [List]; [WriteText] and [WriteJSON] to show
// them.
package diag
