package runtime_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gramlang/gram/runtime"
)

// TestToolSchemaReferenceBomb: a schema of a few kilobytes whose
// definitions each use the next one twice would double with every level
// when its references are written out (40 levels: a trillion nodes). Past a
// bound the references are left as they are and reported, so reading it
// (as binding and mcp import do for a server's tools) takes moments and
// little memory; a schema whose references are few is still written out in
// full.
func TestToolSchemaReferenceBomb(t *testing.T) {
	bomb := func(levels int) string {
		var defs []string
		for i := 0; i < levels; i++ {
			defs = append(defs, fmt.Sprintf(`"d%d": {"type": "object", "properties": {"a": {"$ref": "#/$defs/d%d"}, "b": {"$ref": "#/$defs/d%d"}}}`, i, i+1, i+1))
		}
		defs = append(defs, fmt.Sprintf(`"d%d": {"type": "string"}`, levels))
		return `{"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": {` + strings.Join(defs, ", ") + `}}`
	}
	start := time.Now()
	out, unresolved, err := runtime.ToolSchema(json.RawMessage(bomb(40)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(out)
	if d := time.Since(start); len(b) > 64<<20 || d > 20*time.Second {
		t.Fatalf("40 levels: %d bytes in %v", len(b), d)
	}
	if len(unresolved) == 0 {
		t.Fatal("40 levels: every reference written out, none reported")
	}
	// Six levels: 127 objects, written out in full.
	out, unresolved, err = runtime.ToolSchema(json.RawMessage(bomb(6)))
	if err != nil || len(unresolved) > 0 || strings.Contains(fmt.Sprint(out), "$ref") {
		t.Fatalf("6 levels: unresolved %v, error %v", unresolved, err)
	}
}

// TestToolSchemaTooDeep: a schema nested deeper than JSON decoders allow is
// refused at once with the limit named, not walked level by level (the
// pointers of 40,000 levels took seconds, of two million, hours).
func TestToolSchemaTooDeep(t *testing.T) {
	const n = 200000
	raw := `{"type": "object", "properties": {"x": ` + strings.Repeat(`{"a": `, n) + `1` + strings.Repeat(`}`, n) + `}}`
	start := time.Now()
	_, _, err := runtime.ToolSchema(json.RawMessage(raw))
	if err == nil || !strings.Contains(err.Error(), "nested more than 10000 levels") {
		t.Fatalf("error %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("refused after %v", d)
	}
}
