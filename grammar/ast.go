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
// Every node knows its exact byte span ([Node.Span]): the offsets of its first
// byte and just past its last token (Start, End), so spans never include
// trailing white space or comments. The hand-written parse sets them as it
// reads the tokens; after a participle parse, which records no positions in
// the structs, they are found from the unit's tokens and the spans of the
// hand-written productions (see setSpans).

package grammar

import (
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
)

// Node is implemented by every syntax tree node.
type Node interface {
	Span() diag.Span
}

func span32(start, end int32) diag.Span {
	return diag.Span{Start: int(start), End: int(end)}
}

// Unit is what one top-level piece of a file parses to: either the header record or
// one top-level pattern. A document is a sequence of units; the parser splits the
// file at top-level boundaries and parses each unit on its own, which gives error
// recovery and lets independent units be parsed concurrently.
type Unit struct {
	Header     *Record     `parser:"  @@"`
	Pattern    *TopPattern `parser:"| @@"`
	Start, End int32
}

// Span returns the unit's byte span.
func (u *Unit) Span() diag.Span { return span32(u.Start, u.End) }

// TopPattern is a top-level pattern: a subject pattern or a path, optionally
// preceded by annotations.
type TopPattern struct {
	Annotations *Annotations    `parser:"@@?"`
	Subject     *SubjectPattern `parser:"( @@"`
	Path        *Path           `parser:"| @@ )"`
	Start, End  int32
}

// Span returns the pattern's byte span, annotations included.
func (p *TopPattern) Span() diag.Span { return span32(p.Start, p.End) }

// Annotations are an optional identified annotation (`@@id:L`) followed by
// property annotations (`@k(v)`); at least one is present.
type Annotations struct {
	Identified *IdentifiedAnnotation `parser:"( @@"`
	Properties []*PropertyAnnotation `parser:"  @@* | @@+ )"`
	Start, End int32
}

// Span returns the annotations' byte span.
func (a *Annotations) Span() diag.Span { return span32(a.Start, a.End) }

// IdentifiedAnnotation is `@@ident`, `@@ident:Label...` or `@@:Label...`: a
// subject without a record (checked after parsing).
type IdentifiedAnnotation struct {
	Subject    *Subject `parser:"\"@@\" @@"`
	Start, End int32
}

// Span returns the annotation's byte span.
func (a *IdentifiedAnnotation) Span() diag.Span { return span32(a.Start, a.End) }

// PropertyAnnotation is `@key(value)`.
type PropertyAnnotation struct {
	Key        *Name  `parser:"\"@\" @@"`
	Value      *Value `parser:"\"(\" @@ \")\""`
	Start, End int32
}

// Span returns the annotation's byte span.
func (a *PropertyAnnotation) Span() diag.Span { return span32(a.Start, a.End) }

// SubjectPattern is `[ subject | element, ... ]`.
type SubjectPattern struct {
	Subject    *Subject   `parser:"\"[\" @@?"`
	Bar        bool       `parser:"( @\"|\""`
	Elements   []*Element `parser:"  @@ ( \",\" @@ )* )? \"]\""`
	Start, End int32
}

// Span returns the pattern's byte span, brackets included.
func (p *SubjectPattern) Span() diag.Span { return span32(p.Start, p.End) }

// Element is one element of a subject pattern: a nested subject pattern, a path,
// or a bare identifier (a reference).
type Element struct {
	Subject    *SubjectPattern `parser:"  @@"`
	Path       *Path           `parser:"| @@"`
	Ref        *Ref            `parser:"| @@"`
	Start, End int32
}

// Span returns the element's byte span.
func (e *Element) Span() diag.Span { return span32(e.Start, e.End) }

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
// (see [Arrow.Kind]). Its span is its halves' (see [Arrow.Span]), which
// keeps an arrow 64 bytes.
type Arrow struct {
	Open, Close Tok
	Subject     *Subject
	Bracket     bool // the arrow has brackets, possibly empty: -[]->
}

// Span returns the arrow's byte span: from its opening half to the end of
// its closing half.
func (a *Arrow) Span() diag.Span { return diag.Span{Start: int(a.Open.Off), End: a.Close.End()} }

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
