package mcpimport

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/format"
)

// TestImportFormatted: what Import returns is the formatter's output (the
// generator's own layout differs), and it compiles.
func TestImportFormatted(t *testing.T) {
	tools := []*mcp.Tool{{Name: "get", Description: "Gets", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"q":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}},"required":["q"]}`)}}
	draft, err := Declarations(tools, Options{Agent: "helper"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Import(tools, Options{Agent: "helper"})
	if err != nil {
		t.Fatal(err)
	}
	formatted, diags := format.Format(draft.Source)
	if diags.HasErrors() {
		t.Fatalf("the draft does not format: %v", diags)
	}
	if string(res.Source) != string(formatted) || string(res.Source) == string(draft.Source) {
		t.Errorf("Import returned\n%s\nthe draft formats to\n%s", res.Source, formatted)
	}
	if _, _, err := verified(res.Source); err != nil {
		t.Errorf("the result does not compile: %v", err)
	}
}

// TestVerifiedRefusesBrokenOutput: a generated file with a syntax error or
// a compile error is a *CompileError carrying the file and diagnostics.
func TestVerifiedRefusesBrokenOutput(t *testing.T) {
	for _, src := range []string{
		"[get:Tool {description: \"Gets\"} | (q::String)==>(::String)\n",
		"[get:Tool {description: \"Gets\"} | (q::Strin)==>(::String)]\n",
	} {
		_, _, err := verified([]byte(src))
		var bad *CompileError
		if !errors.As(err, &bad) || len(bad.Diagnostics) == 0 || bad.File.Source() != src {
			t.Errorf("%q: err = %v", src, err)
			continue
		}
		if !strings.Contains(bad.Error(), "do not compile") {
			t.Errorf("%q: message %q", src, bad.Error())
		}
	}
}
