package schema

import (
	"reflect"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

var scrA0 = "{kind: \"agents\"}\n[lookup:Tool {description: \"L\"} | (q::Order)==>(::String)]\n[desk:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Help.\"} | lookup, cancel]\n"
var scrB0 = "{kind: \"agents\"}\n[cancel:Tool {description: \"C\"} | (q::String)==>(::String)]\n[Order:Record | (id::Integer)]\n"
var scrC0 = "{kind: \"agents\"}\n[other:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Help.\"} | cancel]\n"
var scrT0 = "{kind: \"tests\"}\n[t1:Test {agent: desk} | (:User {says: \"hi\"}), (:Answer {contains: \"x\"})]\n"
var scrB1 = "{ \"agents\"}\n[cancel:} | (q::String)==>(::Strcancel, ing)]\n[Order:Recorddesk | (id::Integer)]\n"
var scrA1 = "{kind: \"agents\"}\n][lookup:Tool {description: \"L\"} | (q::Order)==>(:ring)]\nOr(de[desk:Agent {modeenAI/gpt-4o-elp.\"} | lookupl]\n"
var scrC1 = "[cancel:Tool {description: \"y\"} | ()=Strng=>(::String)]\n{kind: \"agentsel: \"OpenAI/gpo-mini\", instruction: \"Help.\"} | cancel]\n"

func scrParse(path, text string) *parser.Document {
	d, _ := parser.Parse(diag.NewFile(path, []byte(text)))
	return d
}

func TestScratch(t *testing.T) {
	states := [][3]string{{scrA0, scrB0, scrC0}, {scrA0, scrB1, scrC0}, {scrA1, scrB1, scrC0}, {scrA1, scrB1, scrC1}}
	mk := func(s [3]string) []*parser.Document {
		return []*parser.Document{scrParse("p/a.gram", s[0]), scrParse("p/b.gram", s[1]), scrParse("p/c.gram", s[2])}
	}
	tests := []*parser.Document{scrParse("p/a_test.gram", scrT0)}
	for i := range states {
		for j := i; j < len(states); j++ {
			prev := RecompilePackage(nil, mk(states[i]), tests)
			docs := mk(states[j])
			got := RecompilePackage(prev, docs, tests)
			_, want := CompilePackage(docs, tests)
			for k := range want {
				if !reflect.DeepEqual(got.Diags[k], want[k]) {
					t.Errorf("%d->%d file %d:\n%v\nwant\n%v", i, j, k, got.Diags[k], want[k])
				}
			}
		}
	}
}
