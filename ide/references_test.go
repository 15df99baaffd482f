package ide

import (
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/project"
)

// TestReferencesInOrderAfterEdit: the references of a package's name in a
// version checked from the one before come in the order of the text, as
// those of the same text checked afresh do, though the units the edit left
// keep their positions.
func TestReferencesInOrderAfterEdit(t *testing.T) {
	other := "[B:Agent {instruction: \"i\", model: \"OpenAI/gpt-4o-mini\"} | t0]\n"
	open := map[string]*diag.File{"pkg/other.gram": diag.NewFile("pkg/other.gram", []byte(other))}
	src := &project.Sources{Dir: "pkg", Paths: []string{"pkg/other.gram"}, Open: open}
	check := func(prev *project.Text, edit *project.Edit, text string) *Analysis {
		f := diag.NewFile("pkg/main.gram", []byte(text))
		c := project.Check(f, project.Request{Prev: prev, Edit: edit, Editing: true, Package: src})
		return NewAnalysis(c.File, c.Doc, c.Program, c.Diags, c.Others, nil)
	}
	text := "[t0:Tool {description: \"d\"} | (x::String)==>(::String)]\n[A:Agent {instruction: \"i\", model: \"OpenAI/gpt-4o-mini\"} | t0]\n"
	f := diag.NewFile("pkg/main.gram", []byte(text))
	prev := project.Check(f, project.Request{Editing: true, Package: src})
	added := "[a1:Agent {instruction: \"i\", model: \"OpenAI/gpt-4o-mini\"} | t0]\n"
	next := added + text
	edited := check(prev, &project.Edit{Span: diag.Span{}, NewLen: len(added)}, next)
	fresh := check(nil, nil, next)
	at := strings.LastIndex(next, "t0")
	starts := func(a *Analysis) []int {
		var out []int
		for _, l := range a.References(at, true) {
			if l.File == a.File {
				out = append(out, l.Span.Start)
			}
		}
		return out
	}
	got, want := starts(edited), starts(fresh)
	if !slices.Equal(got, want) || !slices.IsSorted(got) || len(got) != 3 {
		t.Errorf("references after the edit start at %v, afresh at %v", got, want)
	}
}
