package ide

import (
	"os"
	"strings"
	"testing"
)

// TestPropertyDocLinks checks that every section the property hovers link to
// is a heading of docs/language.md, and that every property with a hover
// text has a link.
func TestPropertyDocLinks(t *testing.T) {
	b, err := os.ReadFile("../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") {
			anchors[strings.ReplaceAll(strings.ToLower(h), " ", "-")] = true
		}
	}
	for label, l := range labelDocs {
		sec := l.section
		if !anchors[sec] {
			t.Errorf("label %s links to #%s, which is no heading of docs/language.md", label, sec)
		}
		if doc := LabelDoc(label); !strings.Contains(doc, LanguageDocURL+"#"+sec) {
			t.Errorf("the hover of label %s has no link to the language reference:\n%s", label, doc)
		}
	}
	for _, label := range []string{"Agent", "Tool", "Record", "Handoff", "ToolSpecification"} {
		doc := LabelDoc(label)
		if n := strings.Count(doc, "[Language reference]("); n != 1 {
			t.Errorf("the hover of label %s has %d links to the language reference, want 1:\n%s", label, n, doc)
		}
		if _, anchor, _ := strings.Cut(doc, LanguageDocURL+"#"); !anchors[strings.TrimSuffix(anchor, ")")] {
			t.Errorf("the hover of label %s links to no heading of docs/language.md:\n%s", label, doc)
		}
	}
	for r, docs := range propDocs {
		sec := docs.section
		if !anchors[sec] {
			t.Errorf("%s properties link to #%s, which is no heading of docs/language.md", r, sec)
		}
		for _, d := range docs.props {
			key := d.key
			if doc := PropertyDoc(r, key); !strings.Contains(doc, LanguageDocURL+"#"+sec) {
				t.Errorf("the hover of %s property %s has no link to the language reference:\n%s", r, key, doc)
			}
		}
	}
}

// TestPropertyDocsCoverReference checks that every property the language
// reference lists for agents and for parameters has a hover text (and so is
// offered by completion).
func TestPropertyDocsCoverReference(t *testing.T) {
	b, err := os.ReadFile("../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	for heading, k := range map[string]Kind{"### Agent properties": KindAgent, "## Parameter properties": KindParam} {
		_, table, ok := strings.Cut(string(b), "\n"+heading+"\n")
		if !ok {
			t.Fatalf("docs/language.md has no heading %q", heading)
		}
		keys := 0
		for _, line := range strings.Split(table, "\n") {
			if strings.HasPrefix(line, "#") {
				break
			}
			cell, ok := strings.CutPrefix(line, "| `")
			if !ok {
				continue
			}
			cell, _, _ = strings.Cut(cell, " |")
			for _, key := range strings.Split(cell, ", ") {
				key = strings.Trim(key, "`")
				keys++
				if PropertyDoc(k, key) == "" {
					t.Errorf("%s property %s is in the language reference but has no hover text", k, key)
				}
			}
		}
		if keys < 10 {
			t.Errorf("read %d properties under %q, want the whole table", keys, heading)
		}
	}
}
