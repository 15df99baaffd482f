package contract_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gramlang/gram/contract"
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// bigRecord returns a version of a record of n fields that a tool takes
// and returns: with changed set, every second field is optional, every
// fourth an Integer, and the last field is renamed, so that a diff finds
// about n changes.
func bigRecord(n int, changed bool) string {
	var b strings.Builder
	b.WriteString("{ kind: \"agents\" }\n[Big:Record {description: \"Big\"} |\n")
	for i := 1; i <= n; i++ {
		name, typ, props := fmt.Sprintf("f%d", i), "String", ""
		if changed {
			if i%2 == 0 {
				props = " {optional: true}"
			}
			if i%4 == 0 {
				typ = "Integer"
			}
			if i == n {
				name = "last"
			}
		}
		sep := ","
		if i == n {
			sep = ""
		}
		fmt.Fprintf(&b, "  (%s::%s%s)%s\n", name, typ, props, sep)
	}
	b.WriteString("]\n[t:Tool {description: \"T\"} | (b::Big)==>(::Big)]\n")
	return b.String()
}

// compileB compiles a version for a benchmark, which must have no errors.
func compileB(b *testing.B, name, src string) *schema.Program {
	b.Helper()
	doc, parsed := parser.Parse(diag.NewFile(name, []byte(src)))
	prog, compiled := schema.Compile(doc)
	if diags := schema.Merge(parsed, compiled); diags.HasErrors() {
		b.Fatalf("%s: %v", name, diags)
	}
	return prog
}

// BenchmarkDiffFields compares two versions of a record of n, 2n, 4n and
// 8n fields, with about as many changes, the record sent and received by
// a tool; the time per field stays the same as n grows when the diff is
// linear:
//
//	go test ./contract -run '^$' -bench '^BenchmarkDiffFields$'
func BenchmarkDiffFields(b *testing.B) {
	for _, n := range []int{5000, 10000, 20000, 40000} {
		b.Run(fmt.Sprintf("fields=%d", n), func(b *testing.B) {
			old, new := compileB(b, "old.gram", bigRecord(n, false)), compileB(b, "new.gram", bigRecord(n, true))
			var changes int
			for b.Loop() {
				changes = len(contract.Diff(old, new).Changes)
			}
			if changes < n {
				b.Fatalf("%d changes, want at least %d", changes, n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/field")
		})
	}
}

// manyTools returns a version of n tools and an agent that has them all:
// with changed set, every second tool has a required parameter more and
// the last is removed, so that a diff finds about n/2 changes.
func manyTools(n int, changed bool) string {
	var b, names strings.Builder
	b.WriteString("{ kind: \"agents\" }\n")
	for i := 1; i <= n; i++ {
		if changed && i == n {
			continue
		}
		params := "(a::String)==>"
		if changed && i%2 == 0 {
			params += "(b::Integer)==>"
		}
		fmt.Fprintf(&b, "[t%d:Tool {description: \"T\"} | %s(::Boolean)]\n", i, params)
		if names.Len() > 0 {
			names.WriteString(", ")
		}
		fmt.Fprintf(&names, "t%d", i)
	}
	fmt.Fprintf(&b, "[desk:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Help.\"} | %s]\n", names.String())
	return b.String()
}

// BenchmarkDiffTools compares two versions of n, 2n, 4n and 8n tools that
// one agent has; the time per tool stays the same as n grows when the
// diff is linear:
//
//	go test ./contract -run '^$' -bench '^BenchmarkDiffTools$'
func BenchmarkDiffTools(b *testing.B) {
	for _, n := range []int{2000, 4000, 8000, 16000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			old, new := compileB(b, "old.gram", manyTools(n, false)), compileB(b, "new.gram", manyTools(n, true))
			var changes int
			for b.Loop() {
				changes = len(contract.Diff(old, new).Changes)
			}
			if changes < n/2 {
				b.Fatalf("%d changes, want at least %d", changes, n/2)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/tool")
		})
	}
}
