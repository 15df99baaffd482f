package parser

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/internal/gramgen"
)

// units splits src into top-level units as the parser does, each with the
// offset of what follows it.
func units(src string) (out [][]lexer.Token, eofs []int) {
	sc := grammar.NewScanner(src)
	sp := splitter{tooDeep: -1}
	var cur []lexer.Token
	for {
		t := sc.Next()
		if t.Type == grammar.EOF || (sp.boundary(&t) && len(cur) > 0) {
			if len(cur) > 0 {
				out, eofs = append(out, cur), append(eofs, t.Pos.Offset)
			}
			cur = nil
			if t.Type == grammar.EOF {
				return out, eofs
			}
		}
		cur = append(cur, t)
	}
}

// TestParseFastAsParticiple: on every unit of random documents (a third of
// them mutated), the project's .gram files and the grammar's examples, the
// hand-written parse gives exactly the tree of the participle grammar, or
// gives up where the participle grammar rejects the unit.
func TestParseFastAsParticiple(t *testing.T) {
	var docs []string
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 3000; i++ {
		s := gramgen.Random(r)
		if i%3 == 0 {
			s = gramgen.Mutate(r, s)
		}
		docs = append(docs, s)
	}
	files, _ := filepath.Glob("../testdata/*/*.gram")
	more, _ := filepath.Glob("../examples/*.gram")
	for _, f := range append(files, more...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	docs = append(docs, gramgen.Mixed(64<<10), gramgen.AgentFile(200))
	fast, slow := 0, 0
	for _, src := range docs {
		f, s := compareFast(t, src)
		fast, slow = fast+f, slow+s
	}
	if fast < 1000 || slow < 100 {
		t.Errorf("%d units parsed by hand, %d not: want many of both", fast, slow)
	}
}

// compareFast parses every unit of src by hand and with the participle
// grammar and reports where they differ; it returns how many units the hand
// parse took and how many it left to the grammar.
func compareFast(t *testing.T, src string) (fast, slow int) {
	t.Helper()
	us, eofs := units(src)
	for i, toks := range us {
		want, err := grammar.ParseUnit(toks, eofs[i])
		got, ok := grammar.ParseFast(toks, eofs[i])
		if ok {
			fast++
		} else {
			slow++
		}
		switch {
		case ok && err != nil:
			t.Errorf("accepted by hand, rejected by the grammar (%s):\n%s", err.Msg, unitText(src, toks))
		case ok && !reflect.DeepEqual(got, want):
			t.Errorf("the trees differ:\n%s", unitText(src, toks))
		case !ok && err == nil:
			t.Errorf("rejected by hand, accepted by the grammar:\n%s", unitText(src, toks))
		}
	}
	return fast, slow
}

// FuzzParseFastAsParticiple checks on any input that the hand-written
// parse of each unit gives exactly the participle grammar's tree, or gives
// up where the grammar rejects the unit: the grammar states the language,
// and the hand parse stays only as long as it is proven equal to it.
func FuzzParseFastAsParticiple(f *testing.F) {
	files, _ := filepath.Glob("../testdata/*/*.gram")
	more, _ := filepath.Glob("../examples/*.gram")
	for _, name := range append(files, more...) {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(string(b))
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 64; i++ {
		s := gramgen.Random(r)
		if i%3 == 0 {
			s = gramgen.Mutate(r, s)
		}
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		compareFast(t, src)
	})
}

func unitText(src string, toks []lexer.Token) string {
	last := toks[len(toks)-1]
	return strings.TrimSpace(src[toks[0].Pos.Offset : last.Pos.Offset+len(last.Value)])
}
