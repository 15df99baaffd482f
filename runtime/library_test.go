package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

const bindSrc = `
[Item:Record {description: "An item"} | (sku::String {pattern: "^[A-Z]+$"}), (qty::Integer {minimum: 1})]
[order:Tool {description: "Places an order"} |
  (items::Array {items: Item, minItems: 1})==>(priority::String {enum: ["low", "high"], default: "low"})==>(userId::String {injected: true})==>(::Boolean)
]
[shop:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Shop."} | order]
`

// orderSchema returns the implementation schema that agrees with bindSrc's
// order tool, as JSON text to edit.
func orderSchema() string {
	return `{
  "type": "object",
  "properties": {
    "items": {"type": "array", "minItems": 1, "items": {
      "type": "object",
      "properties": {"sku": {"type": "string", "pattern": "^[A-Z]+$"}, "qty": {"type": "integer", "minimum": 1.0}},
      "required": ["qty", "sku"],
      "additionalProperties": false,
      "title": "an item"}},
    "priority": {"type": "string", "enum": ["high", "low"], "default": "high", "description": "how soon"},
    "userId": {"type": "string"}
  },
  "required": ["userId", "items"],
  "additionalProperties": false
}`
}

func nop(context.Context, map[string]any) (any, error) { return nil, nil }

// TestBindAgrees: schemas that validate the same way bind, whatever their
// annotations, key order, required order, enum order and number spelling.
func TestBindAgrees(t *testing.T) {
	spec := compile(t, bindSrc).Agents()[0].Tools
	lib := runtime.NewLibrary(runtime.Tool{Name: "order", Parameters: json.RawMessage(orderSchema()), Invoke: nop})
	set, err := lib.Bind(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Bindings) != 1 || set.Bindings[0].Spec != spec[0] || len(set.Warnings) != 0 {
		t.Errorf("toolset %+v", set)
	}
}

// TestBindCompatibility: an implementation whose schema accepts everything
// the specification does binds, however much more it accepts; one that
// refuses something the specification accepts fails binding with a
// ToolError naming the tool, the place and what the declaration allows.
func TestBindCompatibility(t *testing.T) {
	spec := compile(t, bindSrc).Agents()[0].Tools
	for _, tc := range []struct{ old, new, want string }{
		// The implementation is stricter: no binding.
		{`"sku": {"type": "string"`, `"sku": {"type": "integer"`, `at /properties/items/items/properties/sku/type: the declaration is looser: it accepts string, the implementation only integer`},
		{`"minimum": 1.0`, `"minimum": 2`, "at /properties/items/items/properties/qty/minimum: the declaration is looser: it has a bound of 1 and accepts numbers below what the implementation allows (≥ 2)"},
		{`"enum": ["high", "low"]`, `"enum": ["high"]`, `at /properties/priority/enum: the declaration is looser: it allows "low", which the implementation refuses`},
		{`"userId": {"type": "string"}`, `"user": {"type": "string"}`, `at /properties/userId: the declaration is looser: it has the parameter "userId", which the implementation does not accept`},
		{`"minItems": 1, `, `"minItems": 2, `, "at /properties/items/minItems: the declaration is looser: it accepts 1 items, the implementation at least 2"},
		{`"pattern": "^[A-Z]+$"`, `"pattern": "^[A-Z]*$"`, "at /properties/items/items/properties/sku/pattern: the declaration is looser: its pattern is"},
		{`"required": ["qty", "sku"],`, `"required": ["qty", "sku", "note"], "maxProperties": 1,`, `at /properties/items/items/required: the declaration is looser: it has no parameter "note", which the implementation requires`},
		// The implementation is looser: binding.
		{`"sku": {"type": "string", "pattern": "^[A-Z]+$"}`, `"sku": {"type": "string"}`, ""},
		{`"minimum": 1.0`, `"minimum": 0`, ""},
		{`"enum": ["high", "low"]`, `"enum": ["high", "low", "urgent"]`, ""},
		{`"required": ["userId", "items"]`, `"required": ["items"]`, ""},
		{`"minItems": 1, `, ``, ""},
		{`"required": ["userId", "items"],
  "additionalProperties": false`, `"required": ["userId", "items"]`, ""},
		{`"qty": {"type": "integer"`, `"qty": {"type": "number"`, ""},
		// A parameter with a default is always sent: it may be required.
		{`"required": ["userId", "items"]`, `"required": ["userId", "items", "priority"]`, ""},
	} {
		src := strings.Replace(orderSchema(), tc.old, tc.new, 1)
		if src == orderSchema() {
			t.Fatalf("%q is not in the schema", tc.old)
		}
		lib := runtime.NewLibrary(runtime.Tool{Name: "order", Parameters: src, Invoke: nop})
		_, err := lib.Bind(spec)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.new, err)
			}
			continue
		}
		var te *runtime.ToolError
		if !errors.As(err, &te) {
			t.Errorf("%s: error %v, want a ToolError", tc.new, err)
			continue
		}
		if te.Tool != "order" || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), `tool "order": `) {
			t.Errorf("%s:\n got %s\nwant %s", tc.new, err, tc.want)
		}
	}
}

// TestBindMissing: a tool missing from the library fails binding and the
// message lists what the library has; several failures are all reported.
func TestBindMissing(t *testing.T) {
	prog := compile(t, `
[a:Tool {description: "A"} | ()==>(::String)]
[b:Tool {description: "B"} | ()==>(::String)]
[x:Agent {model: "OpenAI/m", instruction: "i"} | a, b]`)
	lib := runtime.NewLibrary(runtime.Tool{Name: "c", Invoke: nop}, runtime.Tool{Name: "d", Invoke: nop})
	_, err := lib.Bind(prog.Agents()[0].Tools)
	var te *runtime.ToolError
	if !errors.As(err, &te) || te.Tool != "a" {
		t.Fatalf("error %v", err)
	}
	for _, want := range []string{`tool "a": is not in the tool library (it has c, d)`, `tool "b": is not in the tool library`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	_, err = runtime.NewLibrary().Bind(prog.Agents()[0].Tools)
	if err == nil || !strings.Contains(err.Error(), "which is empty") {
		t.Errorf("empty library: %v", err)
	}
	if msg := runtime.UserMessage(err); !strings.Contains(msg, "tools isn't available") {
		t.Errorf("user message %q", msg)
	}
}

// TestBindDescriptionWarning: a differing tool description binds with a
// warning; a tool without a schema accepts the specification's.
func TestBindDescriptionWarning(t *testing.T) {
	spec := compile(t, helloSrc).Agents()[0].Tools
	lib := runtime.NewLibrary(runtime.Tool{Name: "sayHello", Description: "Says hi", Invoke: nop})
	set, err := lib.Bind(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Warnings) != 1 || !strings.Contains(set.Warnings[0], `"Says hi" differs from the specification's "Returns a friendly greeting for the given name"`) {
		t.Errorf("warnings %q", set.Warnings)
	}
	if _, err := runtime.Builtins().Bind(spec); err != nil {
		t.Errorf("the built-in sayHello does not bind to the hello spec: %v", err)
	}
}

// TestRegister checks the library's bookkeeping.
func TestRegister(t *testing.T) {
	lib := runtime.NewLibrary()
	for _, bad := range []runtime.Tool{
		{Invoke: nop},
		{Name: "x"},
		{Name: "x", Invoke: nop, Parameters: "[1]"},
		{Name: "x", Invoke: nop, Parameters: "{"},
	} {
		if err := lib.Register(bad); err == nil {
			t.Errorf("registered %+v", bad)
		}
	}
	if err := lib.Register(runtime.Tool{Name: "x", Invoke: nop, Parameters: schema.Object{{Key: "type", Value: "object"}}}); err != nil {
		t.Fatal(err)
	}
	_ = lib.Register(runtime.Tool{Name: "a", Description: "first", Invoke: nop})
	_ = lib.Register(runtime.Tool{Name: "a", Description: "second", Invoke: nop})
	if got, ok := lib.Lookup("a"); !ok || got.Description != "second" {
		t.Errorf("lookup a: %+v %v", got, ok)
	}
	if _, ok := lib.Lookup("zz"); ok {
		t.Error("found zz")
	}
	if got := strings.Join(lib.Names(), ","); got != "a,x" {
		t.Errorf("names %s", got)
	}
	c := lib.Clone()
	_ = c.Register(runtime.Tool{Name: "b", Invoke: nop})
	if len(lib.Names()) != 2 || len(c.Names()) != 3 {
		t.Error("Clone shares its map")
	}
}
