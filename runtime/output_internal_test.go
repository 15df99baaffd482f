package runtime

import (
	"strings"
	"testing"

	"github.com/gramlang/gram/schema"
)

func TestFormatName(t *testing.T) {
	for in, want := range map[string]string{
		"billing":               "billing",
		"billing.v2 agent":      "billing_v2_agent",
		"":                      "answer",
		"факт":                  "____",
		strings.Repeat("a", 70): strings.Repeat("a", 64),
	} {
		if got := formatName(in); got != want {
			t.Errorf("formatName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAnswerJSON(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1}`:                        `{"a":1}`,
		"  {\"a\":1}\n":                  `{"a":1}`,
		"```json\n{\"a\":1}\n```":        `{"a":1}`,
		"```\n[1,2]\n```":                `[1,2]`,
		"```{\"a\":1}```":                `{"a":1}`,
		"```JSON  \n  42 \n```":          `42`,
		"Here it is: ```json\n{}\n```":   "",
		"{\"a\":1} and more":             "",
		"":                               "",
		"```json\n{\"a\":\"x```\"}\n```": `{"a":"x` + "```" + `"}`,
	} {
		got, err := answerJSON(in)
		if want == "" {
			if err == nil {
				t.Errorf("answerJSON(%q) = %s, want an error", in, got)
			}
			continue
		}
		if err != nil || string(got) != want {
			t.Errorf("answerJSON(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
}

func TestStrictSchema(t *testing.T) {
	obj := func(extra ...schema.Member) schema.Object {
		o := schema.Object{
			{Key: "type", Value: "object"},
			{Key: "properties", Value: schema.Object{{Key: "a", Value: schema.Object{{Key: "type", Value: "string"}}}}},
			{Key: "required", Value: []string{"a"}},
			{Key: "additionalProperties", Value: false},
		}
		return append(o, extra...)
	}
	nested := func(s schema.Object) schema.Object {
		return schema.WrapResult(schema.Object{{Key: "type", Value: "array"}, {Key: "items", Value: s}})
	}
	for _, tc := range []struct {
		name string
		o    schema.Object
		want bool
	}{
		{"closed object", obj(), true},
		{"wrapped integer", schema.WrapResult(schema.Object{{Key: "type", Value: "integer"}}), true},
		{"nested closed object", nested(obj()), true},
		{"optional property", schema.Object{
			{Key: "type", Value: "object"},
			{Key: "properties", Value: schema.Object{{Key: "a", Value: schema.Object{{Key: "type", Value: "string"}}}}},
			{Key: "required", Value: []string{}},
			{Key: "additionalProperties", Value: false},
		}, false},
		{"open object inside", nested(schema.Object{{Key: "type", Value: "object"}}), false},
		{"array without items", schema.WrapResult(schema.Object{{Key: "type", Value: "array"}}), false},
		{"minLength", nested(schema.Object{{Key: "type", Value: "string"}, {Key: "minLength", Value: 1}}), false},
		{"default", nested(schema.Object{{Key: "type", Value: "string"}, {Key: "default", Value: "x"}}), false},
		{"known format", nested(schema.Object{{Key: "type", Value: "string"}, {Key: "format", Value: "date-time"}}), true},
		{"unknown format", nested(schema.Object{{Key: "type", Value: "string"}, {Key: "format", Value: "color"}}), false},
		{"open definition", obj(schema.Member{Key: "$defs", Value: schema.Object{{Key: "R", Value: schema.Object{{Key: "type", Value: "object"}}}}}), false},
	} {
		if got := strictSchema(tc.o); got != tc.want {
			t.Errorf("%s: strict = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCheckWrappedAnswer(t *testing.T) {
	ints := &schema.Type{Kind: schema.ArrayType, Name: "Array", Items: &schema.Type{Kind: schema.IntegerType, Name: "Integer"}}
	agent := &schema.Agent{Name: "counter", Signature: true, AsTool: &schema.Tool{Name: "counter", Returns: ints}}
	s := newOutputSpec(agent)
	if s == nil || !s.wrapped || !s.format.Strict || s.format.Name != "counter" {
		t.Fatalf("spec = %+v", s)
	}
	for in, want := range map[string]string{
		`{"result": [1, 2]}`:             "",
		`[1, 2]`:                         `must be an object with the property "result"`,
		`{"z": 1, "a": 2, "result": []}`: `/a: is not a property of the answer; /z: is not a property of the answer`,
		`{"results": [1]}`:               `/results: is not a property of the answer; missing property "result"`,
		`{"result": [1, "2"]}`:           `/result/1: `,
		`{"result": [1, 2]} {}`:          `is not JSON (there is text after the JSON value)`,
	} {
		out, problems := s.check(in)
		got := schema.ProblemsText(problems)
		if want == "" {
			if problems != nil || string(out) != `[1,2]` {
				t.Errorf("check(%s) = %s, %s", in, out, got)
			}
			continue
		}
		if out != nil || !strings.HasPrefix(got, want) {
			t.Errorf("check(%s) = %s, %q; want %q", in, out, got, want)
		}
	}
}
