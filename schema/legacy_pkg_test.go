package schema

import (
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// TestLegacyRecordNameFreeInPackage: the record the older notation's fix
// declares for a parameter's fields takes a name no file of the package
// declares, not only one the file does not.
func TestLegacyRecordNameFreeInPackage(t *testing.T) {
	parse := func(name, text string) *parser.Document {
		doc, _ := parser.Parse(diag.NewFile(name, []byte(text)))
		return doc
	}
	a := parse("p/a.gram", "[Params:Record | (zz::Integer)]\n[ag:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"hi\"} | greet]\n")
	b := parse("p/b.gram", "[greet:ToolSpecification {description: \"hi\"} |\n  (::Object {paramName:\"params\", fields:[{name:\"x\", type:\"Text\"}]})==>(::Text)\n]\n")
	_, diags := CompilePackage([]*parser.Document{a, b}, nil)
	var found bool
	for _, d := range diags[1] {
		if d.Code == CodeLegacyParameter {
			found = true
			if !strings.Contains(d.Message, "(params::Params2)") {
				t.Errorf("legacy-parameter: %q, want the record named Params2 (a.gram declares Params)", d.Message)
			}
		}
	}
	if !found {
		t.Errorf("no legacy-parameter in b.gram: %v", diags[1])
	}
}
