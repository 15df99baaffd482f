// Semantic tokens (full): every identity by what it names (agent, tool,
// parameter, field, record, node, relationship), labels (the agent
// language's as keywords, built-in types as default-library types, records
// as structs), property keys, strings, numbers, booleans, comments, arrows and
// annotations. Definitions carry the "declaration" modifier.
//
// Patterns that parse are read from the syntax tree and the identity index,
// so a name is coloured by what it is, not by where it stands. Text that
// does not parse is lexed and coloured by token. Tokens never span lines:
// a fenced string gives one token per line.

package lsp

import (
	"context"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/schema"
)

// Semantic token types, by index in the legend (see tokenTypes).
const (
	tokAgent = iota
	tokTool
	tokParameter
	tokField
	tokRecord
	tokNode
	tokRelationship
	tokPattern
	tokLabel
	tokKeyword
	tokKey
	tokString
	tokNumber
	tokComment
	tokArrow
	tokAnnotation
	tokSymbol
)

// tokenTypes are the protocol's names of the semantic token types.
var tokenTypes = []protocol.SemanticTokenTypes{
	tokAgent:        protocol.SemanticTokenClass,
	tokTool:         protocol.SemanticTokenFunction,
	tokParameter:    protocol.SemanticTokenParameter,
	tokField:        protocol.SemanticTokenProperty, // a record field
	tokRecord:       protocol.SemanticTokenStruct,
	tokNode:         protocol.SemanticTokenVariable,
	tokRelationship: protocol.SemanticTokenEvent,
	tokPattern:      protocol.SemanticTokenNamespace, // another named pattern
	tokLabel:        protocol.SemanticTokenType,
	tokKeyword:      protocol.SemanticTokenKeyword,
	tokKey:          protocol.SemanticTokenProperty, // a record key
	tokString:       protocol.SemanticTokenString,
	tokNumber:       protocol.SemanticTokenNumber,
	tokComment:      protocol.SemanticTokenComment,
	tokArrow:        protocol.SemanticTokenOperator,
	tokAnnotation:   "decorator",
	tokSymbol:       protocol.SemanticTokenEnumMember, // a symbol value
}

// Semantic token modifiers, as bits.
const (
	modDeclaration    = 1 << iota // declaration
	modDefaultLibrary             // defaultLibrary
	modReadonly                   // readonly (a reference to a tool)
)

// semanticLegend is the legend announced in the capabilities.
func semanticLegend() protocol.SemanticTokensLegend {
	return protocol.SemanticTokensLegend{
		TokenTypes: tokenTypes,
		TokenModifiers: []protocol.SemanticTokenModifiers{
			protocol.SemanticTokenModifierDeclaration,
			protocol.SemanticTokenModifierDefaultLibrary,
			protocol.SemanticTokenModifierReadonly,
		},
	}
}

// SemanticTokensFull answers textDocument/semanticTokens/full.
func (s *server) SemanticTokensFull(ctx context.Context, an *analysis, p *protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	toks, err := an.semanticTokens(ctx)
	if err != nil {
		return nil, err
	}
	return &protocol.SemanticTokens{Data: encodeTokens(an.File, toks)}, nil
}

// semToken is a token before encoding.
type semToken struct {
	span diag.Span
	typ  uint32
	mods uint32
}

// semanticTokens returns the document's tokens in source order, their spans
// as byte offsets.
func (a *analysis) semanticTokens(ctx context.Context) ([]semToken, error) {
	ix := a.Index()
	// About one token in seven bytes of data, fewer in agent files: room
	// for most of them made once.
	out := make([]semToken, 0, a.File.Len()/8+16)
	f := a.File
	add := func(s diag.Span, typ, mods uint32) {
		if s.Len() > 0 {
			out = append(out, semToken{f.Resolve(s), typ, mods})
		}
	}
	visit := func(it ide.SyntaxItem) {
		s := it.Tok.Span()
		switch it.Kind {
		case ide.SynIdent, ide.SynRef:
			typ, mods := uint32(tokPattern), uint32(0)
			if o := ix.Exact(s); o != nil {
				typ = kindTokens[o.Kind]
				if o.IsDef {
					mods |= modDeclaration
				}
			}
			add(s, typ, mods)
		case ide.SynLabel:
			name := it.Tok.Text()
			switch {
			case isLanguageLabel(name):
				add(s, tokKeyword, 0)
			case ix.Exact(s) != nil:
				add(s, tokRecord, 0)
			case schema.BuiltinKind(name) != schema.InvalidType:
				add(s, tokLabel, modDefaultLibrary)
			default:
				add(s, tokLabel, 0)
			}
		case ide.SynKey:
			add(s, tokKey, 0)
		case ide.SynValue:
			add(s, valueToken(it, ix), 0)
		case ide.SynArrow:
			add(s, tokArrow, 0)
		case ide.SynAnnotKey, ide.SynAnnotMark:
			add(s, tokAnnotation, 0)
		}
	}
	w := ide.NewSyntaxWalker(visit)
	if h := a.Doc.Header; h != nil {
		w.Walk(h, h.Span())
	}
	for i, tp := range a.Doc.Patterns() {
		if i%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		w.Walk(tp, tp.Span())
	}
	for _, c := range a.Doc.Comments {
		add(c.Span, tokComment, 0)
	}
	for _, b := range a.Doc.Bad {
		a.lexSpan(f.Resolve(b), false, &out)
	}
	// In source order, where two start at the same offset the walk's
	// first, then the comments', then those of text that did not parse;
	// overlaps dropped (a comment inside text that did not parse, say).
	slices.SortStableFunc(out, func(x, y semToken) int { return x.span.Start - y.span.Start })
	kept := out[:0]
	end := -1
	for _, t := range out {
		if t.span.Start < end {
			continue
		}
		kept = append(kept, t)
		end = t.span.End
	}
	return kept, nil
}

// kindTokens are the token types of the kinds of identities.
var kindTokens = [...]uint32{
	ide.KindOther: tokPattern, ide.KindAgent: tokAgent, ide.KindTool: tokTool,
	ide.KindParam: tokParameter, ide.KindField: tokField, ide.KindRecord: tokRecord,
	ide.KindReturn: tokPattern, ide.KindNode: tokNode, ide.KindRelationship: tokRelationship,
}

// valueToken returns the token type of a value.
func valueToken(it ide.SyntaxItem, ix *ide.Index) uint32 {
	switch it.Tok.Type {
	case grammar.String, grammar.Backtick, grammar.Fenced, grammar.Tagged, grammar.TaggedFenced:
		return tokString
	case grammar.Integer, grammar.Decimal, grammar.Hex, grammar.Octal, grammar.Measurement:
		return tokNumber
	case grammar.Bool:
		return tokKeyword
	}
	if it.Key == "items" && !it.Nested {
		if ix.Exact(it.Tok.Span()) != nil {
			return tokRecord
		}
		return tokLabel
	}
	return tokSymbol
}

// lexSpan colours text that did not parse, token by token: the tokens of
// span s, a record's inside when inRecord is set; a record lexed whole is
// coloured inside the same way. A symbol is a key before a separator in a
// record, and a label after one outside.
func (a *analysis) lexSpan(s diag.Span, inRecord bool, out *[]semToken) {
	var toks []grammar.Tok
	grammar.InspectTokensIn(string(a.File.ByteRange(s.Start, s.End)), s.Start, func(t grammar.Tok) bool {
		toks = append(toks, t)
		return true
	})
	isPunct := func(i int, v ...string) bool {
		return i >= 0 && i < len(toks) && toks[i].Type == grammar.Punct && slices.Contains(v, toks[i].Value)
	}
	for i, t := range toks {
		span := t.Span()
		add := func(typ uint32) { *out = append(*out, semToken{span, typ, 0}) }
		switch t.Type {
		case grammar.RecordText:
			a.lexSpan(diag.Span{Start: span.Start + 1, End: span.End - 1}, true, out)
		case grammar.String, grammar.Backtick, grammar.Fenced, grammar.Tagged, grammar.TaggedFenced:
			if inRecord && isPunct(i+1, ":", "::") {
				add(tokKey)
			} else {
				add(tokString)
			}
		case grammar.Integer, grammar.Decimal, grammar.Hex, grammar.Octal, grammar.Measurement:
			add(tokNumber)
		case grammar.Bool:
			add(tokKeyword)
		case grammar.Symbol:
			afterSep := !inRecord && isPunct(i-1, ":", "::")
			switch {
			case inRecord && isPunct(i+1, ":", "::"):
				add(tokKey)
			case afterSep && isLanguageLabel(t.Value):
				add(tokKeyword)
			case afterSep:
				add(tokLabel)
			case inRecord:
				add(tokSymbol)
			default:
				add(tokPattern)
			}
		case grammar.Punct:
			switch v := t.Value; {
			case grammar.OpensArrow(v) || grammar.ClosesArrow(v):
				add(tokArrow)
			case v == "@" || v == "@@":
				add(tokAnnotation)
			case v == "{":
				inRecord = true
			case v == "}":
				inRecord = false
			}
		}
	}
}

// isLanguageLabel reports whether a label is one of the agent language,
// coloured as a keyword.
func isLanguageLabel(name string) bool {
	return name == schema.AgentLabel || name == schema.ToolLabel || name == schema.RecordLabel || name == schema.LegacyToolLabel || name == schema.HandoffLabel
}

// encodeTokens encodes tokens, in source order, as the protocol's relative
// integers, splitting multi-line tokens into one per line.
func encodeTokens(f *diag.File, toks []semToken) []uint32 {
	data := make([]uint32, 0, len(toks)*5)
	var prevLine, prevChar uint32
	emit := func(line, char, length int, typ, mods uint32) {
		if length <= 0 {
			return
		}
		l, c := uint32(line), uint32(char)
		dl, dc := l-prevLine, c
		if dl == 0 {
			dc = c - prevChar
		}
		data = append(data, dl, dc, uint32(length), typ, mods)
		prevLine, prevChar = l, c
	}
	for _, t := range toks {
		start := f.OffsetLSP(t.span.Start)
		end := f.OffsetLSP(t.span.End)
		for line := start.Line; line <= end.Line; line++ {
			from := 0
			if line == start.Line {
				from = start.Character
			}
			to := end.Character
			if line != end.Line {
				to = f.OffsetLSP(f.LineEnd(line)).Character
			}
			emit(line, from, to-from, t.typ, t.mods)
		}
	}
	return data
}
