package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const ordersSrc = `
[lookup:Tool {description: "Looks up orders"} |
  (orderId::Integer {minimum: 1})==>
  (status::String {enum: ["open", "shipped"], default: "open"})==>
  (note::String {optional: true, maxLength: 5})==>
  (tags::Array {items: String, default: ["a"]})==>
  (customer::Customer {optional: true})==>
  (userId::String {injected: true})==>
  (::String)
]
[Customer:Record | (name::String), (address::Address), (vip::Boolean {default: false})]
[Address:Record | (city::String), (zip::String {optional: true, pattern: "^[0-9]{5}$"})]
`

func lookupTool(t *testing.T) *Tool {
	t.Helper()
	return mustCompile(t, ordersSrc).Tool("lookup")
}

func TestValidateArgs(t *testing.T) {
	tool := lookupTool(t)
	tests := []struct {
		name, args string
		want       string // the arguments after defaults, as JSON
		problems   []Problem
	}{
		{name: "defaults are applied", args: `{"orderId": 7}`,
			want: `{"orderId":7,"status":"open","tags":["a"]}`},
		{name: "given values win over defaults", args: `{"orderId": 7, "status": "shipped", "tags": []}`,
			want: `{"orderId":7,"status":"shipped","tags":[]}`},
		{name: "null means absent for optional parameters", args: `{"orderId": 7, "status": null, "note": null, "customer": null}`,
			want: `{"orderId":7,"status":"open","tags":["a"]}`},
		{name: "nested record defaults", args: `{"orderId": 1, "customer": {"name": "A", "address": {"city": "B", "zip": null}}}`,
			want: `{"customer":{"address":{"city":"B"},"name":"A","vip":false},"orderId":1,"status":"open","tags":["a"]}`},
		{name: "missing required", args: `{}`,
			problems: []Problem{{"/orderId", "is required but missing"}}},
		{name: "empty input is no arguments", args: ``,
			problems: []Problem{{"/orderId", "is required but missing"}}},
		{name: "wrong type", args: `{"orderId": "SECRET-1"}`,
			problems: []Problem{{"/orderId", "must be integer, not string"}}},
		{name: "a decimal is not an integer", args: `{"orderId": 1.5}`,
			problems: []Problem{{"/orderId", "must be integer, not number"}}},
		{name: "enum miss", args: `{"orderId": 1, "status": "SECRET-lost"}`,
			problems: []Problem{{"/status", `must be one of "open", "shipped"`}}},
		{name: "extra property", args: `{"orderId": 1, "extra": "SECRET"}`,
			problems: []Problem{{"/extra", "is not a parameter of the tool"}}},
		{name: "the model cannot set an injected parameter", args: `{"orderId": 1, "userId": "SECRET-admin"}`,
			problems: []Problem{{"/userId", "is not a parameter of the tool"}}},
		{name: "constraints", args: `{"orderId": 0, "note": "SECRET-too-long"}`,
			problems: []Problem{{"/note", "must be at most 5 characters long"}, {"/orderId", "must be at least 1"}}},
		{name: "nested pointers", args: `{"orderId": 1, "customer": {"name": 3, "address": {"zip": "SECRET", "x/y~": 1}}}`,
			problems: []Problem{
				{"/customer/address/city", "is required but missing"},
				{"/customer/address/x~1y~0", "is not a field of this object"},
				{"/customer/address/zip", `must match the pattern "^[0-9]{5}$"`},
				{"/customer/name", "must be string, not number"},
			}},
		{name: "array items", args: `{"orderId": 1, "tags": ["a", 2]}`,
			problems: []Problem{{"/tags/1", "must be string, not number"}}},
		{name: "not JSON", args: `{"orderId": SECRET}`,
			problems: []Problem{{"", "the arguments are not valid JSON (syntax error at byte 13)"}}},
		{name: "trailing data", args: `{"orderId": 1} {"SECRET": 2}`,
			problems: []Problem{{"", "the arguments are not valid JSON"}}},
		{name: "repeated key", args: `{"orderId": 1, "\u006frderId": 2}`,
			problems: []Problem{{"", `the key "orderId" appears twice (send it once)`}}},
		{name: "repeated nested key", args: `{"orderId": 1, "customer": {"name": "SECRET-a", "address": {"zip": "1", "zip": "2"}}}`,
			problems: []Problem{{"/customer/address", `the key "zip" appears twice (send it once)`}}},
		{name: "not an object", args: `["SECRET"]`,
			problems: []Problem{{"", "the arguments must be a JSON object, not an array"}}},
		{name: "a number", args: `42`, problems: []Problem{{"", "the arguments must be a JSON object, not a number"}}},
		{name: "a fraction", args: `4.2`, problems: []Problem{{"", "the arguments must be a JSON object, not a number"}}},
		{name: "a string", args: `"SECRET"`, problems: []Problem{{"", "the arguments must be a JSON object, not a string"}}},
		{name: "a boolean", args: `true`, problems: []Problem{{"", "the arguments must be a JSON object, not a boolean"}}},
		{name: "null", args: `null`, problems: []Problem{{"", "the arguments must be a JSON object, not null"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args, err := ValidateArgs(tool, []byte(tc.args))
			if tc.problems == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				got, _ := json.Marshal(args)
				if string(got) != tc.want {
					t.Errorf("got  %s\nwant %s", got, tc.want)
				}
				return
			}
			var ae *ArgsError
			if !errors.As(err, &ae) {
				t.Fatalf("want an *ArgsError, got %v", err)
			}
			if ae.Tool != "lookup" {
				t.Errorf("the error names tool %q", ae.Tool)
			}
			if diff := cmp.Diff(tc.problems, ae.Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, `tool "lookup": invalid arguments: `) {
				t.Errorf("message %q does not name the tool", msg)
			}
			if strings.Contains(msg, "SECRET") {
				t.Errorf("message %q echoes a value", msg)
			}
		})
	}
}

func TestDefaultsAreNotShared(t *testing.T) {
	tool := lookupTool(t)
	a, err := ValidateArgs(tool, []byte(`{"orderId": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	a["tags"].([]any)[0] = "changed"
	b, err := ValidateArgs(tool, []byte(`{"orderId": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	if b["tags"].([]any)[0] != "a" {
		t.Error("changing the returned arguments changed the default")
	}
}

func TestInjectArgs(t *testing.T) {
	tool := lookupTool(t)
	args, err := ValidateArgs(tool, []byte(`{"orderId": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := InjectArgs(tool, args, map[string]any{"userId": "u-1"}); err != nil {
		t.Fatal(err)
	}
	if args["userId"] != "u-1" {
		t.Errorf("userId = %v", args["userId"])
	}

	args, _ = ValidateArgs(tool, []byte(`{"orderId": 1}`))
	err = InjectArgs(tool, args, nil)
	if err == nil || !strings.Contains(err.Error(), "/userId: is required but missing") {
		t.Errorf("a missing injected parameter: %v", err)
	}
	err = InjectArgs(tool, args, map[string]any{"orderId": 2, "userId": "u"})
	if err == nil || !strings.Contains(err.Error(), "/orderId: is not an injected parameter") {
		t.Errorf("injecting a model parameter: %v", err)
	}
	err = InjectArgs(tool, args, map[string]any{"userId": 5})
	if err == nil || !strings.Contains(err.Error(), "/userId: must be string, not number") {
		t.Errorf("an injected value of the wrong type: %v", err)
	}
}

func TestValidateArgsConcurrent(t *testing.T) {
	tool := lookupTool(t)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := ValidateArgs(tool, []byte(`{"orderId": 3}`)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if tool.compiled() != tool.compiled() || tool.compiled().model == nil {
		t.Error("the schema is not compiled once and cached")
	}
}

// TestValidateArgsSharedRecord checks arguments against a schema whose
// record is shared (written once under $defs): problems and defaults are
// found through the references, at the paths of the arguments.
func TestValidateArgsSharedRecord(t *testing.T) {
	tool := mustCompile(t, `
[Address:Record | (city::String), (country::String {default: "FR"})]
[ship:Tool {description: "Ships"} | (billing::Address)==>(shipping::Address {optional: true})==>(::String)]
`).Tool("ship")
	if _, ok := ParametersSchema(tool, false).Get("$defs"); !ok {
		t.Fatal("the shared record is not under $defs")
	}
	args, err := ValidateArgs(tool, []byte(`{"billing": {"city": "Lyon"}, "shipping": {"city": "Nice", "country": "IT"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(args); string(got) != `{"billing":{"city":"Lyon","country":"FR"},"shipping":{"city":"Nice","country":"IT"}}` {
		t.Errorf("got %s", got)
	}
	_, err = ValidateArgs(tool, []byte(`{"billing": {"city": 1}, "shipping": {}}`))
	var ae *ArgsError
	if !errors.As(err, &ae) {
		t.Fatalf("want an *ArgsError, got %v", err)
	}
	want := []Problem{{"/billing/city", "must be string, not number"}, {"/shipping/city", "is required but missing"}}
	if diff := cmp.Diff(want, ae.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}
