// Syntax error messages: a parse error rewritten to say what is wrong and how
// to fix it, and the errors for brackets never closed or nested too deep.

package parser

import (
	"fmt"
	"sort"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// deepError reports brackets nested past MaxDepth at offset off, in the unit
// of tokens toks. When brackets of the unit are left open at its end, the
// nesting is most likely a mistake rather than intended: the first bracket
// never closed is reported instead.
func deepError(off int, toks []lexer.Token) *grammar.SyntaxError {
	if e := neverClosed(toks, fmt.Sprintf(", nesting more than %d levels deep", MaxDepth)); e != nil {
		return e
	}
	return &grammar.SyntaxError{
		Span:   diag.Span{Start: off, End: off + 1},
		Msg:    fmt.Sprintf("brackets nested more than %d levels deep", MaxDepth),
		Detail: "split the pattern up: define inner patterns at the top level and refer to them by name",
	}
}

// neverClosed reports the first bracket of toks that is never closed, at its
// position, or returns nil when every bracket is closed. more ends the detail
// when other brackets are left open after it.
func neverClosed(toks []lexer.Token, more string) *grammar.SyntaxError {
	open := openBrackets(toks)
	if len(open) == 0 {
		return nil
	}
	t := toks[open[0].at]
	closer := map[string]string{"(": ")", "[": "]", "{": "}"}[t.Value]
	detail := fmt.Sprintf("close it with '%s'", closer)
	if n := len(open) - 1; n == 1 {
		detail += "; a bracket opened after it is not closed either" + more
	} else if n > 1 {
		detail += fmt.Sprintf("; %d brackets opened after it are not closed either", n) + more
	}
	return &grammar.SyntaxError{
		Span:   grammar.TokenSpan(t),
		Msg:    fmt.Sprintf("'%s' is never closed", t.Value),
		Detail: detail,
	}
}

// explain rewrites a parse error into a message that says what is wrong and how
// to fix it, for the mistakes people make most.
func explain(err *grammar.SyntaxError, toks []lexer.Token) *grammar.SyntaxError {
	if n := len(toks); n > 0 && err.Span.Start >= toks[n-1].Pos.Offset+len(toks[n-1].Value) {
		// The pattern ended while the parser still wanted more: name the
		// bracket that was left open, where it opens.
		if e := neverClosed(toks, ""); e != nil {
			return e
		}
	}
	// Find the token the error is at.
	i := sort.Search(len(toks), func(i int) bool { return toks[i].Pos.Offset >= err.Span.Start })
	open := openBrackets(toks[:i])
	if err.Detail != "" {
		if i < len(toks) {
			if e := explainGrammarError(*err, toks, i, open); e != nil {
				return e
			}
		}
		return atLastToken(err, toks)
	}
	if i == len(toks) {
		return pastTheEnd(*err, toks)
	}
	return explainToken(*err, toks, i, open)
}

// pastTheEnd explains an error after the unit's last token: a bracket is
// not closed.
func pastTheEnd(e grammar.SyntaxError, toks []lexer.Token) *grammar.SyntaxError {
	if strings.HasPrefix(e.Msg, "unexpected") {
		e.Msg = "unexpected end of the pattern"
	}
	e.Detail = "a bracket is not closed: check that every ( [ { has its ) ] }"
	// Point at the unit's last token rather than at white space.
	if len(toks) > 0 {
		e.Span = lastTokenSpan(toks)
	}
	return &e
}

// explainToken explains an error at toks[i], after which the brackets open
// are left open.
func explainToken(e grammar.SyntaxError, toks []lexer.Token, i int, open []openBracket) *grammar.SyntaxError {
	t := &toks[i]
	var prev *lexer.Token
	if i > 0 {
		prev = &toks[i-1]
	}
	depth := len(open)
	if isPunct(t, "|") && depth == 0 {
		// A bar outside brackets: most often a ']' typed before it.
		if isPunct(prev, "]") {
			e.Span = grammar.TokenSpan(*prev)
			e.Msg = "this ']' closes the subject pattern before its '|'"
			e.Detail = "remove it: the elements after '|' go inside the brackets, as in [a:Label {k: v} | b, c]"
			return &e
		}
		e.Msg = "'|' is only allowed inside a subject pattern"
		e.Detail = "a subject pattern lists its elements after '|' inside brackets: [a:Label {k: v} | b, c]"
		return &e
	}
	if isPunct(t, "|") && i+1 < len(toks) {
		// Participle stops at the bar when the element after it is wrong.
		t, prev = grammar.ErrorToken(&toks[i+1]), t
		e.Span = grammar.TokenSpan(*t)
		if !isPunct(t, "]") && !isPunct(t, "@") && !isPunct(t, "@@") {
			e.Msg = "expected an element after '|', found " + grammar.Describe(t)
			e.Detail = "elements are subject patterns [..], paths (a)-->(b), or names of patterns"
			return &e
		}
	}
	// Inside the elements of a subject pattern: the innermost open bracket is
	// '[' and a '|' of its own follows it.
	inElements := isPunct(innermost(toks, open), "[") && open[depth-1].bar
	explainMistake(&e, t, prev, depth, inElements)
	return &e
}

// explainGrammarError rewrites an error the grammar already explained, at
// toks[i], after which the brackets open are left open, when the context
// shows a likelier mistake; it returns nil to keep the grammar's message.
func explainGrammarError(e grammar.SyntaxError, toks []lexer.Token, i int, open []openBracket) *grammar.SyntaxError {
	t := &toks[i]
	var prev, next *lexer.Token
	if i > 0 {
		prev = &toks[i-1]
	}
	if i+1 < len(toks) {
		next = &toks[i+1]
	}
	inner := innermost(toks, open)
	switch {
	case strings.HasPrefix(e.Msg, "the identifier must come first") && isPunct(inner, "[") &&
		(prev != nil && (prev.Type == grammar.RecordText || isPunct(prev, "}")) || isPunct(next, ",") || isPunct(next, "]")):
		// [a:Label {k: v} b, c]: the subject is complete and names follow.
		e.Msg = "expected '|' between the subject and its elements"
		e.Detail = "a subject pattern lists its elements after '|': [a:Label {k: v} | b, c]"
		return &e
	case isPunct(t, ",") && isPunct(inner, "("):
		// (a::String, b::Integer): two subjects in one node.
		e.Msg = "a node holds one subject; ',' cannot separate two inside '( )'"
		e.Detail = "give each its own node: (a)-->(b), or in a tool's signature one node per parameter: (name::String)==>(age::Integer)==>(::String)"
		if nodeHasTypedParameter(toks[:i]) {
			e.Msg = "a signature's parameters are separate nodes, not a list inside one '( )'"
			e.Detail = "give each parameter its own node, joined by '==>': (name::String)==>(age::Integer)==>(::String)"
		}
		return &e
	}
	return nil
}

// innermost returns the innermost of the brackets of toks left open, or nil.
func innermost(toks []lexer.Token, open []openBracket) *lexer.Token {
	if len(open) == 0 {
		return nil
	}
	return &toks[open[len(open)-1].at]
}

// openBracket is a bracket left open: its index in the tokens, and whether
// a '|' of its own follows it.
type openBracket struct {
	at  int
	bar bool
}

// openBrackets returns the brackets toks leave open, outermost first (a
// closer without an opener is passed over).
func openBrackets(toks []lexer.Token) []openBracket {
	var open []openBracket
	for k, t := range toks {
		if t.Type != grammar.Punct {
			continue
		}
		switch t.Value {
		case "(", "[", "{":
			open = append(open, openBracket{at: k})
		case ")", "]", "}":
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case "|":
			if len(open) > 0 {
				open[len(open)-1].bar = true
			}
		}
	}
	return open
}

// nodeHasTypedParameter reports whether the node toks leave open holds a
// '::' (a parameter written name::Type).
func nodeHasTypedParameter(toks []lexer.Token) bool {
	for k := len(toks) - 1; k >= 0; k-- {
		if isPunct(&toks[k], "(") {
			return false
		}
		if isPunct(&toks[k], "::") {
			return true
		}
	}
	return false
}

// startsElement reports whether t can begin an element of a subject
// pattern: a name, a node or path, or a subject pattern.
func startsElement(t *lexer.Token) bool { return isName(t) || isPunct(t, "(") || isPunct(t, "[") }

// endsElement reports whether t can end an element of a subject pattern.
func endsElement(t *lexer.Token) bool { return isName(t) || isPunct(t, ")") || isPunct(t, "]") }

// isName reports whether t is a name: a symbol, a boolean or a quoted name.
func isName(t *lexer.Token) bool {
	return t != nil && (t.Type == grammar.Symbol || t.Type == grammar.Bool || t.Type == grammar.Backtick)
}

// isPunct reports whether t is the punctuation s.
func isPunct(t *lexer.Token, s string) bool {
	return t != nil && t.Type == grammar.Punct && t.Value == s
}

// explainMistake rewrites e, an error at t after prev at bracket depth
// depth (inside the elements of a subject pattern when inElements is set),
// for the mistake it most likely is.
func explainMistake(e *grammar.SyntaxError, t, prev *lexer.Token, depth int, inElements bool) {
	p := func(s string) bool { return isPunct(t, s) }
	pp := func(s string) bool { return isPunct(prev, s) }
	switch {
	case p(",") && depth == 0:
		e.Msg = "top-level patterns cannot be separated by commas"
		e.Detail = "separate them with white space or new lines, or group them: [g | (a), (b)]"
	case p("]") && pp("|"):
		e.Msg = "expected an element after '|'"
		e.Detail = "list at least one element, or remove the '|'"
	case p("]") && pp(","):
		e.Msg = "unexpected ']' after ','"
		e.Detail = "remove the trailing comma"
	case p("|") && pp("|"):
		e.Msg = "unexpected second '|'"
	case inElements && endsElement(prev) && startsElement(t) || (p("(") || p("[")) && (pp(")") || pp("]")) && depth > 0:
		e.Msg = "elements must be separated by commas"
		e.Detail = "add ',' between the elements"
		if prev.Type != grammar.Punct && t.Type != grammar.Punct {
			e.Detail += fmt.Sprintf(": %s, %s", prev.Value, t.Value)
		}
	case p("@") || p("@@"):
		e.Msg = "annotations are only allowed before a top-level pattern"
		e.Detail = "move the annotation in front of the whole pattern, or use the pattern's record: (a {k: v})"
	case p("[") && prev != nil && prev.Type == grammar.Punct && grammar.ClosesArrow(prev.Value):
		e.Msg = "a path continues with a node in parentheses, not brackets"
		e.Detail = "write (a)-->(b); use [ ... | ... ] to group paths"
	case t.Type == grammar.Punct && (grammar.OpensArrow(t.Value) || grammar.ClosesArrow(t.Value)):
		if pp("]") && depth == 0 {
			e.Msg = "a subject pattern in brackets cannot be part of a path"
			e.Detail = "write the path with nodes: (a)-->(b)"
		} else {
			e.Msg = "incomplete arrow at '" + t.Value + "'"
			e.Detail = "an arrow has two halves, such as -->, <--, --, <-->, ==> or -[r]->"
		}
	default:
		if strings.HasPrefix(e.Msg, "unexpected") {
			e.Detail = "check the pattern's syntax near here"
		}
	}
}

// atLastToken moves an error found past the unit's last token (at the end of
// the file or of the unit) onto that token, rather than onto the white space or
// empty line after it; on a record lexed whole, onto its closing brace, as when
// lexed token by token.
func atLastToken(err *grammar.SyntaxError, toks []lexer.Token) *grammar.SyntaxError {
	if len(toks) == 0 || err.Span.Start < grammar.TokenSpan(toks[len(toks)-1]).End {
		return err
	}
	e := *err
	e.Span = lastTokenSpan(toks)
	return &e
}

// lastTokenSpan returns the span of the last of toks: of its closing brace,
// for a record lexed whole, as when lexed token by token.
func lastTokenSpan(toks []lexer.Token) diag.Span {
	sp := grammar.TokenSpan(toks[len(toks)-1])
	if toks[len(toks)-1].Type == grammar.RecordText {
		sp.Start = sp.End - 1
	}
	return sp
}
