// Strings: quoted, backtick, tagged and fenced strings, with their escapes
// and the recovery from a broken one.

package grammar

import (
	"fmt"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
)

func isEscape(c byte) bool {
	switch c {
	case '\\', '\'', '"', '`', '/', 'b', 'f', 'n', 'r', 't':
		return true
	}
	return false
}

// scanQuoted scans a one-line quoted text starting after the opening quote at
// position j, returning the offset just past the closing quote, or -1 with the
// offset and text of the problem.
func (l *Scanner) scanQuoted(j int, q byte) (end int, badAt int, msg, detail string) {
	src := l.src
	n := len(src)
	for j < n {
		c := src[j]
		switch {
		case c == q:
			return j + 1, 0, "", ""
		case c == '\n':
			return -1, j, "unterminated string: a quoted string must end on the line it starts",
				"close it with " + string(q) + ", or use a fenced string (```) for text over several lines"
		case c == '\\':
			if j+1 >= n {
				return -1, j, "unterminated string", "close it with " + string(q)
			}
			if !isEscape(src[j+1]) {
				return -1, j, fmt.Sprintf("invalid escape sequence '\\%c'", src[j+1]),
					"the escapes are \\\\ \\' \\\" \\` \\/ \\b \\f \\n \\r \\t"
			}
			j += 2
		case c >= utf8.RuneSelf:
			j += l.checkUTF8(j)
		default:
			j++
		}
	}
	return -1, n, "unterminated string: missing closing " + string(q), "close it with " + string(q)
}

func (l *Scanner) quoted(i int, q byte, typ lexer.TokenType) int {
	mark := len(l.Diags)
	end, bad, msg, detail := l.scanQuoted(i+1, q)
	if end >= 0 {
		l.emit(typ, i, end)
		return end
	}
	return l.recoverString(i, bad, q, msg, detail, mark)
}

// recoverString reports a broken string and skips to a plausible end: the closing
// quote on the same line, or the end of the line. The diagnostics from mark on
// are the failed scan's: an invalid byte it reported past that end is dropped,
// as the text there is lexed again (and the byte reported once, there).
func (l *Scanner) recoverString(i, bad int, q byte, msg, detail string, mark int) int {
	src := l.src
	j := i + 1
	for j < len(src) && src[j] != '\n' {
		if src[j] == '\\' && j+1 < len(src) && src[j+1] != '\n' {
			j += 2
			continue
		}
		if src[j] == q {
			j++
			break
		}
		j++
	}
	if j > len(src) {
		j = len(src)
	}
	kept := l.Diags[:mark]
	for _, d := range l.Diags[mark:] {
		if d.Code != CodeInvalidUTF8 || d.Span.Start < l.base+j {
			kept = append(kept, d)
		}
	}
	l.Diags = kept
	spanStart, spanEnd := i, j
	if bad > i && bad < j && msg[:7] == "invalid" {
		spanStart, spanEnd = bad, bad+2
	}
	d := diag.Errorf(CodeSyntaxError, l.span(spanStart, spanEnd), "%s", msg)
	d.Detail = detail
	l.Diags.Add(d)
	l.emit(Error, i, j)
	return j
}

func (l *Scanner) tagged(i, tick int) int {
	mark := len(l.Diags)
	end, bad, msg, detail := l.scanQuoted(tick+1, '`')
	if end >= 0 {
		l.emit(Tagged, i, end)
		return end
	}
	return l.recoverString(i, bad, '`', msg, detail, mark)
}

// fenced lexes a fenced string starting with ``` at i. Between the opening
// ``` and the line end that starts the text, the opening line may hold a tag
// and, around it, white space and a comment (as the reference grammar allows
// anywhere between two of its tokens): "```md\n", "``` md // note\n".
func (l *Scanner) fenced(i int) int {
	src := l.src
	n := len(src)
	j := l.fenceGap(i + 3)
	var typ lexer.TokenType = Fenced
	if j < n && isSymbolStart(src[j]) {
		for j < n && isSymbolPart(src[j]) {
			j++
		}
		typ = TaggedFenced
		j = l.fenceGap(j)
	}
	if j >= n || src[j] != '\n' {
		e := j
		for e < n && src[e] != '\n' {
			e++
		}
		d := diag.Errorf(CodeSyntaxError, l.span(i, j), "a fenced string must start with ``` (and an optional tag) followed by a new line")
		d.Detail = "put the text on the lines after ```, or use a quoted string for one line"
		l.Diags.Add(d)
		l.emit(Error, i, e)
		return e
	}
	j++
	for k := j; k+2 < n; k++ {
		if src[k] >= utf8.RuneSelf {
			k += l.checkUTF8(k) - 1
			continue
		}
		if src[k] == '`' && src[k+1] == '`' && src[k+2] == '`' {
			l.emit(typ, i, k+3)
			return k + 3
		}
	}
	d := diag.Errorf(CodeSyntaxError, l.span(i, j-1), "unterminated fenced string: missing closing ```")
	d.Detail = "end the text with ``` (three backticks)"
	l.Diags.Add(d)
	l.emit(Error, i, n)
	return n
}

// fenceGap skips white space other than a line end, and a comment, on the
// opening line of a fenced string from j, recording the comment; it returns
// the offset after them.
func (l *Scanner) fenceGap(j int) int {
	src := l.src
	for j < len(src) {
		switch c := src[j]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			j++
		case c == '/' && j+1 < len(src) && src[j+1] == '/':
			k := j + 2
			for k < len(src) && src[k] != '\n' {
				k++
			}
			end := k
			if src[end-1] == '\r' {
				end--
			}
			l.Comments = append(l.Comments, Comment{Span: l.span(j, end)})
			return k
		default:
			return j
		}
	}
	return j
}
