// The lowered form: Pattern<Subject>, what every construct of a document
// denotes (see lower.go for how each is lowered).

package parser

import (
	"slices"
	"unsafe"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// WalkLabel labels the pattern a multi-hop path lowers to.
const WalkLabel = "Gram.Walk"

// Kind tells which construct a lowered pattern came from.
type Kind uint8

// Pattern kinds.
const (
	HeaderKind       Kind = iota // the header record
	NodeKind                     // (n)
	RelationshipKind             // (a)-[r]->(b)
	WalkKind                     // (a)-->(b)-->(c)
	GroupKind                    // [s | ...]
	AnnotatedKind                // @k(v) p
	ReferenceKind                // a bare identifier in an element list
)

// Subject is a pattern's value.
type Subject struct {
	Identity   string
	Labels     []string   // in source order, without duplicates
	Properties []Property // in source order, without duplicate keys
}

// Property is one key and value of a subject. The key's span is kept as two
// 32-bit offsets (see [Property.KeySpan]), which makes a property 32 bytes.
type Property struct {
	Key              string
	keyStart, keyEnd int32
	Value            *grammar.Value
}

// NewProperty returns the property key = v whose key is written at keySpan.
func NewProperty(key string, keySpan diag.Span, v *grammar.Value) Property {
	return Property{Key: key, keyStart: int32(keySpan.Start), keyEnd: int32(keySpan.End), Value: v}
}

// KeySpan returns where the property's key is written.
func (p *Property) KeySpan() diag.Span { return diag.Span{Start: int(p.keyStart), End: int(p.keyEnd)} }

// ValueSpan returns where the property's value is written; it is empty when
// the property has no value.
func (p *Property) ValueSpan() diag.Span {
	if p.Value == nil {
		return diag.Span{}
	}
	return p.Value.Span()
}

// Prop returns the property with the given key, or nil.
func (s *Subject) Prop(key string) *Property {
	for i := range s.Properties {
		if s.Properties[i].Key == key {
			return &s.Properties[i]
		}
	}
	return nil
}

// HasLabel reports whether the subject has the label.
func (s *Subject) HasLabel(l string) bool { return slices.Contains(s.Labels, l) }

// Pattern is a lowered Pattern<Subject>.
//
// Its spans are not stored but read from the syntax node it came from (see
// [Pattern.Span], [Pattern.IdentSpan]), which keeps a document's patterns
// small.
type Pattern struct {
	Subject  Subject
	Elements []*Pattern
	// Def is, for a reference (a bare identifier, or a path node or relationship
	// that repeats an identity), the pattern that defines the identity; nil when
	// the pattern defines it or the reference is undefined.
	Def *Pattern
	// syntax is the syntax node the pattern came from, whose type the kind
	// tells (see [Pattern.Syntax]): a pointer rather than an interface keeps a
	// pattern 112 bytes.
	syntax unsafe.Pointer
	Kind   Kind
}

// newPattern returns a pattern of kind k from the syntax node n, which must
// be of the type the kind tells (see [Pattern.Syntax]).
func newPattern[N any](k Kind, n *N) Pattern {
	p := Pattern{Kind: k, syntax: unsafe.Pointer(n)}
	if n == nil || any(p.Syntax()) != any(n) {
		panic("parser: a pattern's syntax node does not match its kind")
	}
	return p
}

// Syntax returns the syntax node the pattern came from: *grammar.Record for
// the header, *grammar.TopPattern for an annotated pattern,
// *grammar.SubjectPattern, *grammar.NodePattern, *grammar.Path (relationships
// and walks) or *grammar.Ref.
func (p *Pattern) Syntax() grammar.Node {
	if p.syntax == nil {
		return nil
	}
	switch p.Kind {
	case HeaderKind:
		return (*grammar.Record)(p.syntax)
	case NodeKind:
		return (*grammar.NodePattern)(p.syntax)
	case RelationshipKind, WalkKind:
		return (*grammar.Path)(p.syntax)
	case GroupKind:
		return (*grammar.SubjectPattern)(p.syntax)
	case AnnotatedKind:
		return (*grammar.TopPattern)(p.syntax)
	case ReferenceKind:
		return (*grammar.Ref)(p.syntax)
	}
	return nil
}

// Span returns the source of the construct: for a relationship, from its
// left node to its right node; for the others, the syntax node's span.
func (p *Pattern) Span() diag.Span {
	if p.Kind == RelationshipKind {
		path := (*grammar.Path)(p.syntax)
		return diag.Span{Start: int(path.Left.Start), End: int(path.Right.Left.End)}
	}
	return p.Syntax().Span()
}

// IdentSpan returns where the pattern's identity is written: the identifier
// of its subject (of the identified annotation, for an annotated pattern),
// or the whole reference; the zero span when the pattern is anonymous.
func (p *Pattern) IdentSpan() diag.Span {
	var s *grammar.Subject
	switch x := p.Syntax().(type) {
	case *grammar.Ref:
		return x.Span()
	case *grammar.NodePattern:
		s = x.Subject
	case *grammar.SubjectPattern:
		s = x.Subject
	case *grammar.Path:
		if p.Kind == RelationshipKind {
			s = x.Arrow.Subject
		}
	case *grammar.TopPattern:
		if a := x.Annotations; a != nil && a.Identified != nil {
			s = a.Identified.Subject
		}
	}
	if s == nil || !s.Ident.Valid() {
		return diag.Span{}
	}
	return s.Ident.Span()
}

// IsReference reports whether the pattern refers to an identity defined elsewhere.
func (p *Pattern) IsReference() bool { return p.Kind == ReferenceKind || p.Def != nil }
