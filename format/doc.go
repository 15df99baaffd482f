// Package format is the canonical formatter of gram notation, behind
// `gramc fmt` and the language server's formatting requests.
//
// # Entry points
//
//   - [Format] formats a whole file.
//   - [FormatRange] formats only the top-level patterns that intersect a byte
//     range and returns the change as a [diag.Edit].
//
// Both work on the syntax tree (not on the lowered patterns), keep every
// comment, and refuse a file (or range) with syntax errors, returning the
// errors instead. Formatting never changes what a file means: the formatted
// file lowers to the same patterns, has the same comments, and formatting it
// again changes nothing.
//
// # Style
//
// Layout:
//
//   - The header record comes first, then one top-level pattern per line
//     group. Blank lines between top-level patterns, list entries and comments
//     are kept, but a run of them becomes one; blank lines at the start and end
//     of the file, right after an opening bracket or `|` and right before a
//     closing bracket are removed. The file
//     ends with one line ending. Lines end as the file's first line does (LF
//     or CRLF); outside fenced strings, no line ends in white space.
//   - Records and maps are written `{key: value, key2: value2}`, a `::`
//     entry `{key :: value}`, arrays `[a, b]`, ranges `1..10`, `1...`,
//     `...10`. A subject is `id:Label:Other {record}`; nodes are `(subject)`
//     with no space inside the parentheses; arrows are written without spaces
//     (`-[r:KNOWS {since: 2001}]->`); annotations are `@key(value)` and
//     `@@id:Label`.
//   - A subject pattern is `[subject | a, b, c]` (`[| a, b]` without a
//     subject).
//   - Property annotations each take a line of their own before the pattern
//     (and an identified annotation too when there are property annotations);
//     an identified annotation alone stays on the pattern's line: `@@p (a)`.
//
// Breaking lines: a construct is written on one line when it fits in 100
// columns (together with what follows it up to the next place a line may
// break); otherwise it breaks, outermost first:
//
//   - a subject pattern breaks after `|`: each element on its own line,
//     indented two spaces, and the closing `]` on a line of its own;
//   - a record, map or array breaks one entry per line, indented two spaces,
//     the closing bracket on a line of its own;
//   - a path breaks after each arrow, every node starting a line at the same
//     indentation (the way curried tool signatures are written).
//
// A construct that contains a comment or a fenced string always breaks, and
// so do the constructs around it.
//
// Kept as written:
//
//   - Fenced strings, byte for byte (their content is user text).
//   - Every token's text: the quoting style of strings and names, their
//     escapes, number spellings, the label separator (`:` or `::`), the entry
//     separator, the arrow family and direction, and empty arrow brackets
//     (`-[]->`).
//
// # Comments
//
// Every comment stays where it is relative to the code around it. An
// end-of-line comment stays at the end of the line of the code before it; an
// own-line comment keeps its own line, indented like the code that follows it
// in the same construct (a comment after the last element of a list is
// indented like the elements). When a comment sits where the construct would
// otherwise be on one line (inside a record, between the halves of an arrow),
// the construct breaks so the comment keeps its line end; where there is no
// natural break (between arrow halves, inside a node), the code after the
// comment continues on the next line. The only code that moves past a comment
// is a separator: a comment before `,` or `|` ends up after it. Trailing white
// space is removed from comments.
package format
