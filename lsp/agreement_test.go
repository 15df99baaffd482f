package lsp

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/format"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/parser"
)

// agreementInputs returns the texts the front ends are compared on: the
// project's own .gram files, random documents (a third of them mutated, so
// about half are broken), and, when the reference grammar's corpus is checked
// out beside the clone, the input of every corpus case.
func agreementInputs(t *testing.T) []string {
	var texts []string
	for _, dir := range []string{"../testdata", "../examples"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".gram") {
				b, err := os.ReadFile(path)
				texts = append(texts, string(b))
				return err
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(12, 1))
	for i := 0; i < 400; i++ {
		s := gramgen.Random(r)
		if i%3 == 0 {
			s = gramgen.Mutate(r, s)
		}
		texts = append(texts, s)
	}
	corpus, _ := filepath.Glob("../../shared/conformance/tree-sitter-gram/corpus/*.txt")
	for _, path := range corpus {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, corpusInputs(string(b))...)
	}
	return texts
}

// corpusInputs returns the inputs of a tree-sitter corpus file: the text
// between each case's header (a name between lines of '=') and its '---' line.
func corpusInputs(s string) []string {
	var out []string
	lines := strings.SplitAfter(s, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "===") {
			continue
		}
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(lines[j], "===") {
			j++
		}
		k := j + 1
		for k < len(lines) && strings.TrimRight(lines[k], "\r\n") != "---" {
			k++
		}
		if k < len(lines) {
			out = append(out, strings.Join(lines[j+1:k], ""))
		}
		i = k
	}
	return out
}

// rejectCodes are the codes of the diagnostics by which the front end
// rejects a text: syntax errors and bytes a string may not hold.
var rejectCodes = map[string]bool{"syntax-error": true, "invalid-utf8": true}

func hasSyntaxError(codes []string) bool {
	for _, c := range codes {
		if rejectCodes[c] {
			return true
		}
	}
	return false
}

// TestFrontEndsAgree: the parser, `gramc check`, the formatter and the
// language server (on opening a document and after an incremental edit)
// accept exactly the same inputs: a text the parser accepts is never
// reported as a syntax error anywhere, and a text it rejects is reported as
// one everywhere.
func TestFrontEndsAgree(t *testing.T) {
	texts := agreementInputs(t)
	dir := t.TempDir()
	files := make([]string, len(texts))
	for i, s := range texts {
		files[i] = filepath.Join(dir, fmt.Sprintf("doc%04d.gram", i))
		if err := os.WriteFile(files[i], []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep := gramcReport(t, files)
	if len(rep.Files) != len(files) {
		t.Fatalf("gramc reported %d files of %d", len(rep.Files), len(files))
	}
	check := map[string][]string{}
	for _, f := range rep.Files {
		for _, d := range f.Diagnostics {
			check[f.Path] = append(check[f.Path], d.Code)
		}
	}
	c := newTestClient(t, nil)
	accepted := 0
	for i, s := range texts {
		_, pd := parser.ParseSyntax(diag.NewFile("t.gram", []byte(s)))
		// A map inside an array is a nested-map error of the notation, which
		// the agent language reads in the older notation's fields lists: it
		// is judged by the compiler, not as a syntax error.
		var codes []string
		for _, d := range pd {
			if d.Severity == diag.Error {
				codes = append(codes, d.Code)
			}
		}
		ok := !hasSyntaxError(codes)
		if ok {
			accepted++
		}
		verdict := func(where string, syntaxError bool) {
			if syntaxError == ok {
				t.Errorf("input %d: the parser %s it, %s %s:\n%s", i, map[bool]string{true: "accepts", false: "rejects"}[ok],
					where, map[bool]string{true: "reports a syntax error", false: "reports none"}[syntaxError], s)
			}
		}
		verdict("gramc check", hasSyntaxError(check[files[i]]))
		_, fd := format.Format([]byte(s))
		verdict("the formatter", fd.HasErrors())

		if !utf8.ValidString(s) {
			// LSP carries text as JSON strings, which hold only UTF-8: the
			// language server never sees such a text.
			continue
		}
		uri := protocol.DocumentURI(fmt.Sprintf("file:///agree/doc%04d.gram", i))
		c.open(uri, s)
		verdict("the language server", publishedSyntaxError(c.waitDiagnostics(uri, 1)))
		// A line added at the end is re-parsed incrementally.
		end := lspEnd(s)
		c.edit(uri, 2, protocol.Range{Start: end, End: end}, "\n")
		verdict("the language server after an edit", publishedSyntaxError(c.waitDiagnostics(uri, 2)))
		c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	}
	// The comparison means something only if both verdicts are common.
	if accepted < len(texts)/4 || accepted > len(texts)*9/10 {
		t.Errorf("%d of %d inputs accepted: want a mix of valid and broken inputs", accepted, len(texts))
	}
}

func publishedSyntaxError(p publishParams) bool {
	for _, d := range p.Diagnostics {
		if rejectCodes[fmt.Sprint(d.Code)] {
			return true
		}
	}
	return false
}

// lspEnd returns the LSP position of the end of s.
func lspEnd(s string) protocol.Position {
	line := strings.Count(s, "\n")
	last := s[strings.LastIndexByte(s, '\n')+1:]
	n := 0
	for _, r := range last {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return protocol.Position{Line: uint32(line), Character: uint32(n)}
}
