// Paths and nodes, parsed by hand through participle's Parseable interface.

package grammar

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Parse implements participle.Parseable:
//
//	path = node [ arrow path ]
//	node = "(" [ subject ] ")"
//
// The chain is parsed in a loop, so long paths use no stack.
func (p *Path) Parse(lex *lexer.PeekingLexer) error { return p.parse(lex) }

func (p *Path) parse(lex tokens) error {
	if !isPunct(lex.Peek(), "(") {
		return participle.NextMatch
	}
	cur := p
	for {
		n, err := parseNode(lex)
		if err != nil {
			return err
		}
		cur.Left = n
		cur.Start = n.Start
		if !isOpenHalf(lex.Peek()) {
			// The path ends here: set the end of every part of it.
			for q := p; q != nil; q = q.Right {
				q.End = n.End
			}
			return nil
		}
		a := &Arrow{}
		if err := a.parse(lex); err != nil {
			return err
		}
		cur.Arrow = a
		if t := lex.Peek(); !isPunct(t, "(") {
			detail := "an arrow leads to a node: (a)-->(b)"
			if isPunct(t, "[") {
				detail = "brackets cannot be part of a path: write (a)-->(b), and group paths with [g | ...]"
			}
			return unexpected(t, "a node '(' after the arrow", detail)
		}
		cur.Right = &Path{}
		cur = cur.Right
	}
}

func parseNode(lex tokens) (*NodePattern, error) {
	open := lex.Next()
	n := &NodePattern{Start: int32(open.Pos.Offset)}
	t := lex.Peek()
	if !isPunct(t, ")") {
		s := &Subject{}
		switch err := s.parse(lex); err {
		case nil:
			n.Subject = s
		case participle.NextMatch:
		default:
			return nil, err
		}
		t = lex.Peek()
		if !isPunct(t, ")") {
			switch {
			case t.Type == Punct && (t.Value == "@" || t.Value == "@@"):
				return nil, &SyntaxError{Span: TokenSpan(*t), Msg: "annotations are only allowed before a top-level pattern",
					Detail: "move the annotation in front of the whole pattern, or use the node's record: (a {k: v})"}
			case isIdent(t) && n.Subject == nil:
			}
			return nil, unexpected(t, "')' to close the node", "a node holds an identifier, labels and a record, in that order: (a:Label {k: v})")
		}
	}
	lex.Next()
	n.End = int32(t.Pos.Offset + 1)
	return n, nil
}
