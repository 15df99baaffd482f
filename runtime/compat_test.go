package runtime_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/runtime"
)

// TestSchemaCompatible is the binding rule as a table: each pair is a
// declaration's schema and an implementation's, compatible (want empty)
// or not, with the pointers of the incompatibilities and a phrase of the
// first one's message.
func TestSchemaCompatible(t *testing.T) {
	obj := func(props string, extra ...string) string {
		s := `{"type":"object","properties":{` + props + `}`
		for _, e := range extra {
			s += "," + e
		}
		return s + "}"
	}
	addrSchema := func(city string) string {
		return `{"type":"object","properties":{"city":{"type":` + city + `}},"required":["city"],"additionalProperties":false}`
	}
	addr := func(city string) string { return `"$defs":{"Addr":` + addrSchema(city) + `}` }
	tests := []struct {
		name       string
		decl, impl string
		want       []string // pointers; empty: compatible
		phrase     string   // in the first message
	}{
		// additionalProperties
		{name: "closed declaration, implementation allows extras (absent)",
			decl: obj(`"path":{"type":"string"}`, `"required":["path"]`, `"additionalProperties":false`),
			impl: obj(`"path":{"type":"string"}`, `"required":["path"]`)},
		{name: "closed declaration, implementation allows extras (true)",
			decl: obj(`"a":{"type":"string"}`, `"additionalProperties":false`),
			impl: obj(`"a":{"type":"string"}`, `"additionalProperties":true`)},
		{name: "open declaration, closed implementation",
			decl: obj(`"a":{"type":"string"}`),
			impl: obj(`"a":{"type":"string"}`, `"additionalProperties":false`),
			want: []string{"/additionalProperties"}, phrase: "accepts properties it does not list"},
		{name: "parameter the closed implementation does not know",
			decl: obj(`"a":{"type":"string"},"b":{"type":"string"}`, `"additionalProperties":false`),
			impl: obj(`"a":{"type":"string"}`, `"additionalProperties":false`),
			want: []string{"/properties/b"}, phrase: `has the parameter "b", which the implementation does not accept`},
		{name: "parameter the open implementation does not list",
			decl: obj(`"a":{"type":"string"},"b":{"type":"integer"}`, `"additionalProperties":false`),
			impl: obj(`"a":{"type":"string"}`)},
		{name: "extra parameter against a typed additionalProperties",
			decl: obj(`"b":{"type":"integer"}`, `"additionalProperties":false`),
			impl: obj(``, `"additionalProperties":{"type":"string"}`),
			want: []string{"/properties/b/type"}, phrase: "it accepts integer, the implementation only string"},
		{name: "open declaration against a constrained property it does not declare",
			decl: obj(`"a":{"type":"string"}`),
			impl: obj(`"a":{"type":"string"},"n":{"type":"integer"}`),
			want: []string{"/additionalProperties"}, phrase: `accepts a property "n" of any kind`},
		// required
		{name: "required in the declaration, optional in the implementation",
			decl: obj(`"a":{"type":"string"}`, `"required":["a"]`, `"additionalProperties":false`),
			impl: obj(`"a":{"type":"string"}`)},
		{name: "optional in the declaration, required by the implementation",
			decl: obj(`"a":{"type":"string"},"b":{"type":"string"}`, `"required":["a"]`, `"additionalProperties":false`),
			impl: obj(`"a":{"type":"string"},"b":{"type":"string"}`, `"required":["a","b"]`),
			want: []string{"/required"}, phrase: `it makes "b" optional, the implementation requires it`},
		{name: "required by the implementation, absent from the closed declaration",
			decl: obj(`"a":{"type":"string"}`, `"required":["a"]`, `"additionalProperties":false`),
			impl: obj(`"a":{"type":"string"},"c":{"type":"string"}`, `"required":["a","c"]`),
			want: []string{"/required"}, phrase: `it has no parameter "c", which the implementation requires`},
		// types
		{name: "integer within number",
			decl: obj(`"n":{"type":"integer"}`, `"additionalProperties":false`),
			impl: obj(`"n":{"type":"number"}`)},
		{name: "number against integer",
			decl: obj(`"n":{"type":"number"}`, `"additionalProperties":false`),
			impl: obj(`"n":{"type":"integer"}`),
			want: []string{"/properties/n/type"}, phrase: "it accepts number, the implementation only integer"},
		{name: "string against a nullable string (type array)",
			decl: obj(`"s":{"type":"string"}`, `"additionalProperties":false`),
			impl: obj(`"s":{"type":["string","null"]}`)},
		{name: "nullable declaration against a non-nullable implementation",
			decl: obj(`"s":{"type":["string","null"]}`, `"additionalProperties":false`),
			impl: obj(`"s":{"type":"string"}`),
			want: []string{"/properties/s/type"}, phrase: "it accepts null, the implementation only string"},
		{name: "string against anyOf string or null",
			decl: obj(`"s":{"type":"string","maxLength":5}`, `"additionalProperties":false`),
			impl: obj(`"s":{"anyOf":[{"type":"string"},{"type":"null"}]}`)},
		{name: "boolean against anyOf string or null",
			decl: obj(`"s":{"type":"boolean"}`, `"additionalProperties":false`),
			impl: obj(`"s":{"anyOf":[{"type":"string"},{"type":"null"}]}`),
			want: []string{"/properties/s"}, phrase: "no alternative of the implementation's anyOf"},
		{name: "any type against a string",
			decl: obj(`"s":{}`, `"additionalProperties":false`),
			impl: obj(`"s":{"type":"string"}`),
			want: []string{"/properties/s/type"}, phrase: "it accepts any type"},
		// enum
		{name: "narrower enum",
			decl: obj(`"m":{"type":"string","enum":["a"]}`, `"additionalProperties":false`),
			impl: obj(`"m":{"type":"string","enum":["a","b"]}`)},
		{name: "wider enum",
			decl: obj(`"m":{"type":"string","enum":["a","c"]}`, `"additionalProperties":false`),
			impl: obj(`"m":{"type":"string","enum":["a","b"]}`),
			want: []string{"/properties/m/enum"}, phrase: `it allows "c", which the implementation refuses`},
		{name: "enum against a plain string",
			decl: obj(`"m":{"type":"string","enum":["x","y"]}`, `"additionalProperties":false`),
			impl: obj(`"m":{"type":"string","maxLength":3}`)},
		{name: "no enum against an enum",
			decl: obj(`"m":{"type":"string"}`, `"additionalProperties":false`),
			impl: obj(`"m":{"type":"string","enum":["a","b"]}`),
			want: []string{"/properties/m/enum"}, phrase: `the implementation only ["a","b"]`},
		// bounds
		{name: "tighter minimum and maximum",
			decl: obj(`"n":{"type":"integer","minimum":1,"maximum":10}`, `"additionalProperties":false`),
			impl: obj(`"n":{"type":"integer","minimum":0,"maximum":100}`)},
		{name: "looser maximum",
			decl: obj(`"n":{"type":"integer","maximum":100}`, `"additionalProperties":false`),
			impl: obj(`"n":{"type":"integer","maximum":10}`),
			want: []string{"/properties/n/maximum"}, phrase: "accepts numbers above what the implementation allows (≤ 10)"},
		{name: "no minimum against a minimum",
			decl: obj(`"n":{"type":"number"}`, `"additionalProperties":false`),
			impl: obj(`"n":{"type":"number","minimum":0}`),
			want: []string{"/properties/n/minimum"}, phrase: "no minimum"},
		{name: "integer minimum against an exclusive minimum",
			decl: obj(`"n":{"type":"integer","minimum":1}`, `"additionalProperties":false`),
			impl: obj(`"n":{"type":"integer","exclusiveMinimum":0}`)},
		{name: "number minimum against the same exclusive minimum",
			decl: obj(`"n":{"type":"number","minimum":0}`, `"additionalProperties":false`),
			impl: obj(`"n":{"type":"number","exclusiveMinimum":0}`),
			want: []string{"/properties/n/exclusiveMinimum"}, phrase: "(> 0)"},
		{name: "tighter lengths",
			decl: obj(`"s":{"type":"string","minLength":2,"maxLength":20}`, `"additionalProperties":false`),
			impl: obj(`"s":{"type":"string","minLength":1,"maxLength":200}`)},
		{name: "looser maxLength",
			decl: obj(`"s":{"type":"string","maxLength":300}`, `"additionalProperties":false`),
			impl: obj(`"s":{"type":"string","maxLength":200}`),
			want: []string{"/properties/s/maxLength"}, phrase: "up to 300 characters, the implementation at most 200"},
		{name: "missing pattern",
			decl: obj(`"s":{"type":"string"}`, `"additionalProperties":false`),
			impl: obj(`"s":{"type":"string","pattern":"^[a-z]+$"}`),
			want: []string{"/properties/s/pattern"}, phrase: "without the pattern"},
		{name: "same format",
			decl: obj(`"u":{"type":"string","format":"uri"}`, `"additionalProperties":false`),
			impl: obj(`"u":{"type":"string","format":"uri"}`)},
		// nested objects and arrays
		{name: "nested object, stricter",
			decl: obj(`"r":{"type":"object","properties":{"at":{"type":"string"},"n":{"type":"integer"}},"required":["at","n"],"additionalProperties":false}`, `"additionalProperties":false`),
			impl: obj(`"r":{"type":"object","properties":{"at":{"type":"string"},"n":{"type":"number"}},"required":["at"]}`)},
		{name: "nested object, a property its implementation forbids",
			decl: obj(`"r":{"type":"object","properties":{"at":{"type":"string"},"x":{"type":"string"}},"additionalProperties":false}`, `"additionalProperties":false`),
			impl: obj(`"r":{"type":"object","properties":{"at":{"type":"string"}},"additionalProperties":false}`),
			want: []string{"/properties/r/properties/x"}, phrase: `has the parameter "x"`},
		{name: "array of records, stricter elements",
			decl: obj(`"edits":{"type":"array","items":{"type":"object","properties":{"old":{"type":"string"},"new":{"type":"string"}},"required":["old","new"],"additionalProperties":false},"minItems":1}`, `"additionalProperties":false`),
			impl: obj(`"edits":{"type":"array","items":{"type":"object","properties":{"old":{"type":"string"},"new":{"type":"string"}},"required":["old","new"]}}`)},
		{name: "array elements of the wrong type",
			decl: obj(`"tags":{"type":"array","items":{"type":"string"}}`, `"additionalProperties":false`),
			impl: obj(`"tags":{"type":"array","items":{"type":"integer"}}`),
			want: []string{"/properties/tags/items/type"}, phrase: "it accepts string, the implementation only integer"},
		{name: "untyped elements against typed ones",
			decl: obj(`"tags":{"type":"array"}`, `"additionalProperties":false`),
			impl: obj(`"tags":{"type":"array","items":{"type":"string"}}`),
			want: []string{"/properties/tags/items/type"}, phrase: "any type"},
		{name: "more items than allowed",
			decl: obj(`"tags":{"type":"array","items":{"type":"string"},"maxItems":10}`, `"additionalProperties":false`),
			impl: obj(`"tags":{"type":"array","items":{"type":"string"},"maxItems":5}`),
			want: []string{"/properties/tags/maxItems"}, phrase: "up to 10 items, the implementation at most 5"},
		{name: "nested arrays of nested objects, a required field left optional",
			decl: obj(`"m":{"type":"array","items":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}},"additionalProperties":false}}}`, `"additionalProperties":false`),
			impl: obj(`"m":{"type":"array","items":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]}}}`),
			want: []string{"/properties/m/items/items/required"}, phrase: `it makes "k" optional`},
		{name: "tuple (draft 7 items array) against typed positions",
			decl: obj(`"pt":{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":false}`, `"additionalProperties":false`),
			impl: obj(`"pt":{"type":"array","items":[{"type":"number"},{"type":"integer"}]}`),
			want: []string{"/properties/pt/prefixItems/1/type"}, phrase: "it accepts string, the implementation only integer"},
		{name: "multipleOf, a multiple of the implementation's",
			decl: obj(`"n":{"type":"number","multipleOf":0.5}`, `"additionalProperties":false`),
			impl: obj(`"n":{"type":"number","multipleOf":0.25}`)},
		{name: "multipleOf missing",
			decl: obj(`"n":{"type":"number"}`, `"additionalProperties":false`),
			impl: obj(`"n":{"type":"number","multipleOf":0.25}`),
			want: []string{"/properties/n/multipleOf"}, phrase: "not multiples of 0.25"},
		{name: "implementation oneOf with overlapping alternatives",
			decl: obj(`"v":{"type":"integer"}`, `"additionalProperties":false`),
			impl: obj(`"v":{"oneOf":[{"type":"number"},{"type":"integer","minimum":0}]}`),
			want: []string{"/properties/v"}, phrase: "no alternative of the implementation's oneOf"},
		{name: "implementation oneOf with disjoint alternatives",
			decl: obj(`"v":{"type":"string"}`, `"additionalProperties":false`),
			impl: obj(`"v":{"oneOf":[{"type":"string"},{"type":"integer"}]}`)},
		// combinators and keywords that are not reasoned about
		{name: "implementation allOf",
			decl: obj(`"n":{"type":"integer","minimum":5}`, `"additionalProperties":false`),
			impl: `{"allOf":[{"type":"object"},{"properties":{"n":{"type":"integer","minimum":1}}}]}`},
		{name: "declaration anyOf, one alternative refused",
			decl: obj(`"v":{"anyOf":[{"type":"string"},{"type":"boolean"}]}`, `"additionalProperties":false`),
			impl: obj(`"v":{"type":"string"}`),
			want: []string{"/properties/v/anyOf/1/type"}, phrase: "it accepts boolean"},
		{name: "if/then/else in the implementation only",
			decl: obj(`"a":{"type":"string"}`, `"additionalProperties":false`),
			impl: `{"type":"object","properties":{"a":{"type":"string"}},"if":{"required":["a"]},"then":{"required":["b"]}}`,
			want: []string{"/if", "/then"}, phrase: "cannot be compared"},
		// local references, resolved on both sides
		{name: "shared definition against the same schema",
			decl: obj(`"a":{"$ref":"#/$defs/Addr"},"b":{"$ref":"#/$defs/Addr","description":"b"}`, `"additionalProperties":false`, addr(`"string"`)),
			impl: obj(`"a":{"$ref":"#/$defs/Addr"},"b":{"$ref":"#/$defs/Addr"}`, `"additionalProperties":false`, addr(`"string"`))},
		{name: "shared definition against the same schema written out",
			decl: obj(`"a":{"$ref":"#/$defs/Addr"},"b":{"$ref":"#/$defs/Addr"}`, `"additionalProperties":false`, addr(`"string"`)),
			impl: obj(`"a":`+addrSchema(`"string"`)+`,"b":`+addrSchema(`"string"`), `"additionalProperties":false`)},
		{name: "shared definition looser than the implementation",
			decl: obj(`"a":{"$ref":"#/$defs/Addr"},"b":{"$ref":"#/$defs/Addr"}`, `"additionalProperties":false`, addr(`"string"`)),
			impl: obj(`"a":`+addrSchema(`"string"`)+`,"b":{"$ref":"#/definitions/Addr"}`, `"additionalProperties":false`, `"definitions":{"Addr":`+addrSchema(`"integer"`)+`}`),
			want: []string{"/properties/b/properties/city/type"}, phrase: "it accepts string, the implementation only integer"},
		{name: "a reference to another document is not compared",
			decl: obj(`"a":{"$ref":"other.json#/Addr"}`, `"additionalProperties":false`),
			impl: obj(`"a":{"type":"object"}`, `"additionalProperties":false`),
			want: []string{"/properties/a"}, phrase: "cannot be compared"},
		{name: "annotations differ",
			decl: obj(`"a":{"type":"string","description":"mine","default":"x"}`, `"additionalProperties":false`),
			impl: obj(`"a":{"type":"string","description":"theirs","title":"A"}`, `"$schema":"http://json-schema.org/draft-07/schema#"`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := runtime.SchemaCompatible(tt.decl, tt.impl)
			if err != nil {
				t.Fatal(err)
			}
			var ptrs []string
			for _, c := range got {
				ptrs = append(ptrs, c.Pointer)
			}
			if diff := cmp.Diff(tt.want, ptrs); diff != "" {
				t.Fatalf("pointers (-want +got):\n%s\nincompatibilities: %v", diff, got)
			}
			if len(got) > 0 {
				s := got[0].String()
				if !strings.Contains(s, tt.phrase) || !strings.Contains(s, "the declaration is looser") {
					t.Errorf("message %q does not say %q", s, tt.phrase)
				}
			}
		})
	}
}
