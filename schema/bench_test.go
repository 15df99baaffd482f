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

// agentTestFile returns a test file for gramgen.AgentFile(lines): a test of
// each of its agents that calls the agent's shared tool. With broken set,
// every third test names its agent misspelt (a did-you-mean among all the
// agents), and every third other one calls the tool with an argument it
// does not have and checks the answer with an unknown property.
func agentTestFile(lines int, broken bool) string {
	var b strings.Builder
	b.WriteString("{kind: \"tests\"}\n\n")
	agents := strings.Count(gramgen.AgentFile(lines), ":Agent {")
	for i := 0; i < agents; i++ {
		agent, arg, check := fmt.Sprintf("agent%d", i), "id", "contains"
		switch {
		case broken && i%3 == 0:
			agent = fmt.Sprintf("agentt%d", i)
		case broken && i%3 == 1:
			arg, check = "idd", "contain"
		}
		fmt.Fprintf(&b, "[finds_%[1]d:Test {agent: %[2]s, trajectory: inOrder} |\n  (:User {says: \"What is the status of item %[1]d?\"}),\n"+
			"  (:Call {tool: lookup%[1]d, args: {%[3]s: %[5]d}}),\n  (:NoCall {tool: greet%[1]d}),\n  (:Answer {%[4]s: \"open\"})\n]\n\n", i, agent, arg, check, i+1)
	}
	return b.String()
}

// BenchmarkCompile compiles generated agent files (gramgen.AgentFile) of n,
// 2n, 4n and 8n lines, clean and with mistakes in every third block (see
// brokenAgentFile), as the language server does after each edit, and test
// files with a test of each agent of those files, compiled with the agent
// file's program (see agentTestFile). Parsing, and compiling the agent file
// a test file is compiled with, are outside the timed part. It reports
// ns/op and allocs/op for each size; linear growth is a doubling of both
// from one size to the next.
//
//	go test ./schema -run '^$' -bench '^BenchmarkCompile$' -benchmem
func BenchmarkCompile(b *testing.B) {
	for _, input := range []struct {
		name  string
		make  func(int) string
		tests bool // a test file, compiled with the program of the agent file
	}{
		{"clean", gramgen.AgentFile, false},
		{"broken", brokenAgentFile, false},
		{"tests-clean", func(n int) string { return agentTestFile(n, false) }, true},
		{"tests-broken", func(n int) string { return agentTestFile(n, true) }, true},
	} {
		for _, lines := range compileBenchLines {
			b.Run(fmt.Sprintf("%s/lines=%d", input.name, lines), func(b *testing.B) {
				var env []*Program
				if input.tests {
					adoc, _ := parser.Parse(diag.NewFile("agents.gram", []byte(gramgen.AgentFile(lines))))
					prog, _ := Compile(adoc)
					env = append(env, prog)
				}
				doc, pd := parser.Parse(diag.NewFile("agents.gram", []byte(input.make(lines))))
				_, diags := CompileWith(doc, env...)
				diags = Merge(pd, diags)
				broken := strings.HasSuffix(input.name, "broken")
				if !broken && len(diags) > 0 {
					b.Fatalf("the clean input has diagnostics: %s", diags[0].Message)
				}
				if broken && len(diags) == 0 {
					b.Fatal("the broken input has no diagnostics")
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					CompileWith(doc, env...)
				}
			})
		}
	}
}

// BenchmarkRecompile compiles an agent file again after a character is
// typed into the description of the agent in its middle, from the program
// of the text before (as gram-lsp does after each edit), beside compiling
// the edited text afresh; clean and with mistakes in every third block.
func BenchmarkRecompile(b *testing.B) {
	for _, input := range []struct {
		name string
		make func(int) string
	}{{"clean", gramgen.AgentFile}, {"broken", brokenAgentFile}} {
		for _, lines := range compileBenchLines {
			text := input.make(lines)
			doc, _ := parser.ParseForEdits(diag.NewFile("agents.gram", []byte(text)))
			prog, _ := Compile(doc)
			at := strings.Index(text[len(text)/2:], "Answers questions") + len(text)/2
			edit := diag.Span{Start: at, End: at}
			edited := text[:at] + "x" + text[at:]
			ndoc, _ := reparse(doc, diag.NewFile("agents.gram", []byte(edited)), edit, 1)
			if again, _ := Recompile(prog, ndoc); !tookSteps(again, prog) {
				b.Fatal("the previous program's results were not taken")
			}
			b.Run(fmt.Sprintf("%s/lines=%d/recompile", input.name, lines), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					Recompile(prog, ndoc)
				}
			})
			b.Run(fmt.Sprintf("%s/lines=%d/compile", input.name, lines), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					Compile(ndoc)
				}
			})
		}
	}
}
