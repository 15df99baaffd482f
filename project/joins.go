// Which files join a package: by their name, their header, their
// declarations.

package project

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// Joins reports whether the parsed file at path joins its directory's
// package (see the package documentation).
func Joins(path string, doc *parser.Document) bool {
	if SetAside(path) {
		return false
	}
	switch kind := HeaderKind(doc); kind {
	case "agents", "tests":
		return true
	case "":
		return declares(doc) || schema.HasHandoff(doc)
	}
	return false
}

// SetAside reports whether the file at path is set aside by its name,
// which starts with "_" or ".": it never joins its directory's package,
// and the walks of a directory skip it, as the Go tools set such files
// aside (a scratch copy, _notes.gram; an editor's file, .#notes.gram).
func SetAside(path string) bool {
	name := filepath.Base(path)
	return strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".")
}

// headerLimit is how much of the start of a file [NeverJoins] reads to
// find its header.
const headerLimit = 64 << 10

// NeverJoins reports whether the file at path is known not to join its
// directory's package from its name alone ([SetAside]), from the header
// at its start (a kind other than "agents" or "tests", such as "data"),
// or, for a file whose header gives no kind, from a scan of its tokens
// that finds no label of a declaration ([mayDeclare]). Neither builds a
// syntax tree, so that a large data file beside an agent file costs
// little to leave out: a header is found in the file's first 64 KiB. It
// returns false when it cannot tell: a file that is not a regular file or
// cannot be read (reading it whole says why), or one larger than the scan
// reads.
func NeverJoins(path string) bool {
	if SetAside(path) {
		return true
	}
	info, err := os.Stat(path) // not Open: opening a FIFO blocks
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, min(info.Size(), headerLimit))
	n, _ := io.ReadFull(f, head)
	kind, ok := headerKindOf(head[:n])
	switch {
	case ok && kind != "":
		return kind != "agents" && kind != "tests"
	case info.Size() > scanLimit:
		return false
	}
	text := make([]byte, info.Size())
	copy(text, head[:n])
	if m, _ := io.ReadFull(f, text[n:]); n+m != len(text) {
		return false
	}
	return !mayDeclare(text)
}

// scanLimit is the size of the largest file without a kind that
// [NeverJoins] scans for declarations; a larger one is read and parsed.
const scanLimit = 512 << 20

// declLabels are the labels that make a top-level pattern a declaration
// (see declares).
var declLabels = []string{schema.AgentLabel, schema.ToolLabel, schema.RecordLabel, schema.TestLabel, schema.LegacyToolLabel}

// joinLabels are the labels whose use may make a file join its package:
// those of the declarations and of a handoff (see [schema.HasHandoff]).
var joinLabels = append(slices.Clip(declLabels), schema.HandoffLabel)

// mayDeclare reports whether text may declare an agent, a tool, a record
// or a test, or hold a handoff: whether one of [joinLabels] follows a ":"
// or "::" among its tokens. It never misses what parsing text would find (no
// escape in a name spells a letter), and it builds no tree: a file for
// which it is false is plain gram data.
func mayDeclare(text []byte) bool {
	if !slices.ContainsFunc(joinLabels, func(l string) bool { return bytes.Contains(text, []byte(l)) }) {
		return false
	}
	sc := grammar.NewScanner(string(text))
	colon := false
	for tok := sc.Next(); tok.Type != grammar.EOF; tok = sc.Next() {
		if colon && isDeclLabel(tok) {
			return true
		}
		colon = tok.Type == grammar.Punct && (tok.Value == ":" || tok.Value == "::")
		sc.Comments = sc.Comments[:0] // not kept: only the tokens matter
	}
	return false
}

// isDeclLabel reports whether tok, after a ":" or "::", may name one of
// [joinLabels]: a symbol that is one, or a quoted name holding one.
func isDeclLabel(tok lexer.Token) bool {
	name := tok.Value
	switch tok.Type {
	case grammar.Symbol, grammar.Bool:
	case grammar.Backtick:
		if strings.ContainsRune(name, '\\') {
			return true
		}
		name = strings.Trim(name, "`")
	default:
		return false
	}
	return slices.Contains(joinLabels, name)
}

// headerKindOf returns the kind the header record at the start of text
// gives ("" for none) and true, or false when text does not start with a
// whole record (after blank space and comments).
func headerKindOf(text []byte) (string, bool) {
	tok := grammar.NewScanner(string(text)).Next()
	if tok.Type != grammar.RecordText {
		return "", false
	}
	end := tok.Pos.Offset + len(tok.Value)
	doc, _ := parser.Parse(diag.NewFile("", text[:end]))
	if doc == nil || doc.Header == nil {
		return "", false
	}
	return HeaderKind(doc), true
}

// HeaderKind returns the string value of the kind property of a
// document's header record, or "".
func HeaderKind(doc *parser.Document) string {
	if doc == nil || doc.Header == nil || doc.NumLowered() == 0 {
		return ""
	}
	if pr := doc.LoweredAt(0).Subject.Prop("kind"); pr != nil && pr.Value != nil && pr.Value.Kind() == grammar.ScalarValue {
		return pr.Value.Tok.Text()
	}
	return ""
}

// declares reports whether a document declares an agent, a tool, a record
// or a test at its top level.
func declares(doc *parser.Document) bool {
	for _, p := range doc.AllLowered() {
		if slices.ContainsFunc(schema.Innermost(p).Subject.Labels, func(l string) bool { return slices.Contains(declLabels, l) }) {
			return true
		}
	}
	return false
}
