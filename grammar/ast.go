// Syntax tree of gram notation.
//
// The structural productions (units, top-level patterns, annotations, subject
// patterns, elements) are participle grammar structs: their tags are the grammar.
// Well-formed units are parsed by hand along the same productions ([ParseFast],
// fast.go); participle parses the units that fail, for their errors ([ParseUnit]).
// The hot productions (paths, nodes, arrows, subjects, labels, records, maps,
// arrays, scalars) implement participle's Parseable interface by hand, which keeps
// time and memory low where most of a file's tokens are (subject.go, path.go,
// arrow.go, ref.go, record.go, value.go).
//
// Every node knows its exact byte span ([Node.Span]). Participle records where a
// struct starts (Pos) and the position of the token after it (EndPos); the parser
// rewrites EndPos.Offset to the end of the struct's last token, so spans never
// include trailing white space or comments.

package grammar

import (
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
)

// Node is implemented by every syntax tree node.
type Node interface {
	Span() diag.Span
}

func posSpan(start, end lexer.Position) diag.Span {
	return diag.Span{Start: start.Offset, End: end.Offset}
}

// Unit is what one top-level piece of a file parses to: either the header record or
// one top-level pattern. A document is a sequence of units; the parser splits the
// file at top-level boundaries and parses each unit on its own, which gives error
// recovery and lets independent units be parsed concurrently.
type Unit struct {
	Pos, EndPos lexer.Position
	Header      *Record     `parser:"  @@"`
	Pattern     *TopPattern `parser:"| @@"`
}

// Span returns the unit's byte span.
func (u *Unit) Span() diag.Span { return posSpan(u.Pos, u.EndPos) }

// TopPattern is a top-level pattern: a subject pattern or a path, optionally
// preceded by annotations.
type TopPattern struct {
	Pos, EndPos lexer.Position
	Annotations *Annotations    `parser:"@@?"`
	Subject     *SubjectPattern `parser:"( @@"`
	Path        *Path           `parser:"| @@ )"`
}

// Span returns the pattern's byte span, annotations included.
func (p *TopPattern) Span() diag.Span { return posSpan(p.Pos, p.EndPos) }

// Annotations are an optional identified annotation (`@@id:L`) followed by
// property annotations (`@k(v)`); at least one is present.
type Annotations struct {
	Pos, EndPos lexer.Position
	Identified  *IdentifiedAnnotation `parser:"( @@"`
	Properties  []*PropertyAnnotation `parser:"  @@* | @@+ )"`
}

// Span returns the annotations' byte span.
func (a *Annotations) Span() diag.Span { return posSpan(a.Pos, a.EndPos) }

// IdentifiedAnnotation is `@@ident`, `@@ident:Label...` or `@@:Label...`: a
// subject without a record (checked after parsing).
type IdentifiedAnnotation struct {
	Pos, EndPos lexer.Position
	Subject     *Subject `parser:"\"@@\" @@"`
}

// Span returns the annotation's byte span.
func (a *IdentifiedAnnotation) Span() diag.Span { return posSpan(a.Pos, a.EndPos) }

// PropertyAnnotation is `@key(value)`.
type PropertyAnnotation struct {
	Pos, EndPos lexer.Position
	Key         *Name  `parser:"\"@\" @@"`
	Value       *Value `parser:"\"(\" @@ \")\""`
}

// Span returns the annotation's byte span.
func (a *PropertyAnnotation) Span() diag.Span { return posSpan(a.Pos, a.EndPos) }

// SubjectPattern is `[ subject | element, ... ]`.
type SubjectPattern struct {
	Pos, EndPos lexer.Position
	Subject     *Subject   `parser:"\"[\" @@?"`
	Bar         bool       `parser:"( @\"|\""`
	Elements    []*Element `parser:"  @@ ( \",\" @@ )* )? \"]\""`
}

// Span returns the pattern's byte span, brackets included.
func (p *SubjectPattern) Span() diag.Span { return posSpan(p.Pos, p.EndPos) }

// Element is one element of a subject pattern: a nested subject pattern, a path,
// or a bare identifier (a reference).
type Element struct {
	Pos, EndPos lexer.Position
	Subject     *SubjectPattern `parser:"  @@"`
	Path        *Path           `parser:"| @@"`
	Ref         *Ref            `parser:"| @@"`
}

// Span returns the element's byte span.
func (e *Element) Span() diag.Span { return posSpan(e.Pos, e.EndPos) }

// Path is a node, optionally followed by an arrow and the rest of the path
// (right-recursive, as the reference grammar's relationship_pattern). Paths are
// parsed by hand (see path.go).
type Path struct {
	Left       *NodePattern
	Arrow      *Arrow // nil for a single node
	Right      *Path  // the rest of the path when Arrow is set
	Start, End int32
}

// Span returns the path's byte span.
func (p *Path) Span() diag.Span { return diag.Span{Start: int(p.Start), End: int(p.End)} }

// NodePattern is `( subject )`.
type NodePattern struct {
	Subject    *Subject
	Start, End int32
}

// Span returns the node's byte span, parentheses included.
func (n *NodePattern) Span() diag.Span { return diag.Span{Start: int(n.Start), End: int(n.End)} }

// Arrow is an opening half, an optional bracketed subject and a closing half
// (parsed by hand, see arrow.go). Which halves may pair is checked after parsing
// (see [Arrow.Kind]).
type Arrow struct {
	Open, Close Tok
	Bracket     bool // the arrow has brackets, possibly empty: -[]->
	Subject     *Subject
	Start, End  int32
}

// Span returns the arrow's byte span.
func (a *Arrow) Span() diag.Span { return diag.Span{Start: int(a.Start), End: int(a.End)} }

// OpenSpan returns the span of the opening half.
func (a *Arrow) OpenSpan() diag.Span { return a.Open.Span() }

// CloseSpan returns the span of the closing half.
func (a *Arrow) CloseSpan() diag.Span { return a.Close.Span() }

// ArrowKind is the direction of an arrow.
type ArrowKind int

// Arrow directions.
const (
	BadArrow ArrowKind = iota
	Undirected
	Right
	Left
	Bidirectional
)

// String returns the reference grammar's node kind for the direction.
func (k ArrowKind) String() string {
	switch k {
	case Undirected:
		return "undirected_arrow"
	case Right:
		return "right_arrow"
	case Left:
		return "left_arrow"
	case Bidirectional:
		return "bidirectional_arrow"
	}
	return "bad_arrow"
}

// Family returns the arrow family character: '-', '=' or '~'.
func (a *Arrow) Family() byte {
	if a.Open.Value[0] == '<' {
		return a.Open.Value[1]
	}
	return a.Open.Value[0]
}

// Kind returns the arrow's direction, or BadArrow when the halves are of different
// families (`-[r]=>`).
func (a *Arrow) Kind() ArrowKind {
	if a.Close.Value[0] != a.Family() {
		return BadArrow
	}
	left := a.Open.Value[0] == '<'
	right := len(a.Close.Value) == 2
	switch {
	case left && right:
		return Bidirectional
	case left:
		return Left
	case right:
		return Right
	}
	return Undirected
}

// TokenSpan returns the byte span of a participle token.
func TokenSpan(t lexer.Token) diag.Span {
	return diag.Span{Start: t.Pos.Offset, End: t.Pos.Offset + len(t.Value)}
}
