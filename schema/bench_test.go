package schema

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/parser"
)

// compileBenchLines are the sizes, in lines, of the agent files the compile
// benchmarks compile: n, 2n, 4n and 8n, up to the 50,000 lines of the
// language server's target.
var compileBenchLines = []int{6250, 12500, 25000, 50000}

// brokenAgentFile returns gramgen.AgentFile(lines) with mistakes the compiler
// reports in every third block: a misspelt record type (a did-you-mean among
// all the records of the file), an unknown agent property, a quoted items
// type, a default that is not an enum member and a tool listed twice.
func brokenAgentFile(lines int) string {
	src := gramgen.AgentFile(lines)
	block := regexp.MustCompile(`(?s)// Tools and agent (\d+)\n.*?\n\n(?:.*?\n\n){2}`)
	return block.ReplaceAllStringFunc(src, func(b string) string {
		var i int
		fmt.Sscanf(b, "// Tools and agent %d", &i)
		if i%3 != 0 {
			return b
		}
		n := fmt.Sprint(i)
		return strings.NewReplacer(
			"(::Item"+n+")", "(::Itemm"+n+")",
			"temperature:", "temprature:",
			"items: String", `items: "String"`,
			`{enum: ["open", "closed"]}`, `{enum: ["open", "closed"], default: "shut"}`,
			"  lookup"+n+",\n", "  lookup"+n+", lookup"+n+",\n",
		).Replace(b)
	})
}

// BenchmarkCompile compiles generated agent files (gramgen.AgentFile) of n,
// 2n, 4n and 8n lines, clean and with mistakes in every third block (see
// brokenAgentFile), as the language server does after each edit. Parsing is
// outside the timed part. It reports ns/op and allocs/op for each size;
// linear growth is a doubling of both from one size to the next.
//
//	go test ./schema -run '^$' -bench '^BenchmarkCompile$' -benchmem
func BenchmarkCompile(b *testing.B) {
	for _, input := range []struct {
		name string
		make func(int) string
	}{{"clean", gramgen.AgentFile}, {"broken", brokenAgentFile}} {
		for _, lines := range compileBenchLines {
			b.Run(fmt.Sprintf("%s/lines=%d", input.name, lines), func(b *testing.B) {
				src := input.make(lines)
				doc, _ := parser.Parse(diag.NewFile("agents.gram", []byte(src)))
				_, diags := Compile(doc)
				if input.name == "clean" && len(diags) > 0 {
					b.Fatalf("the clean agent file has diagnostics: %s", diags[0].Message)
				}
				if input.name == "broken" && len(diags) == 0 {
					b.Fatal("the broken agent file has no diagnostics")
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					Compile(doc)
				}
			})
		}
	}
}
