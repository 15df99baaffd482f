// Package gramgen generates large, valid gram documents for benchmarks: a mix of
// every construct (nodes with records, relationships of all arrow kinds, subject
// patterns, annotations, agents with fenced instructions, tools with signatures,
// records, comments).
//
// Entry points: [Mixed], [Agents], [AgentFile] and [AgentPackage] for benchmarks of the toolchain,
// [SharedRecords] for the size of schemas,
// [Clean] and [Broken] for the scaling benchmark, [Random] and [Mutate] for
// random documents in tests.
package gramgen

import (
	"fmt"
	"regexp"
	"strings"
)

var arrows = [][2]string{
	{"-", "->"}, {"<-", "-"}, {"-", "-"}, {"<-", "->"},
	{"=", "=>"}, {"<=", "="}, {"=", "="}, {"<=", "=>"},
	{"~", "~>"}, {"<~", "~"}, {"~", "~"}, {"<~", "~>"},
}

// Mixed returns a document of at least size bytes mixing every construct. Every
// identity is unique, so the document parses without diagnostics.
func Mixed(size int) string {
	var b strings.Builder
	b.Grow(size + 4096)
	b.WriteString("{ kind: \"benchmark\", version: 1.0 }\n\n")
	for i := 0; b.Len() < size; i++ {
		writeBlock(&b, i)
	}
	return b.String()
}

func writeBlock(b *strings.Builder, i int) {
	fmt.Fprintf(b, "// block %d: people and places\n", i)
	for k := range dataPatterns {
		writeData(b, i, k)
	}
	b.WriteString("\n")
	if i%4 == 0 {
		fmt.Fprintf(b, "[tool%d:Tool {description: \"Looks up item %d by id\"} |\n  (id%d::Integer {description: \"The item's number in the store\"})==>(limit::Integer {default: 10, minimum: 1})==>(::String)\n]\n\n", i, i, i)
		fmt.Fprintf(b, "[agent%d:Agent {\n  description: \"Agent number %d\",\n  model: \"OpenAI/gpt-4o-mini\",\n  maxIterations: 5,\n  instruction: ```\n    You are agent %d. Answer the user's questions about items, briefly and politely.\n    When the user asks about an item, call the tool%d tool with the item's id,\n    then summarise what it returns in one or two sentences.\n    ```\n} |\n  tool%d\n]\n\n", i, i, i, i, i)
	}
}

// dataPatterns is the number of data patterns of a block of [Mixed].
const dataPatterns = 5

// writeData writes data pattern k (0 <= k < dataPatterns) of block i of
// [Mixed]: two nodes with records, two paths between them and new nodes, and
// an annotated group. Pattern k of block i defines identities numbered i
// only, and refers only to those of the patterns before it in the block.
func writeData(b *strings.Builder, i, k int) {
	a := arrows[i%len(arrows)]
	switch k {
	case 0:
		fmt.Fprintf(b, "(p%d:Person {name: \"Person %d\", age: %d, height: 1%dcm, score: 0.%d, active: true})\n", i, i, 20+i%60, i%90+10, i%97)
	case 1:
		fmt.Fprintf(b, "(q%d:Person:Employee {name: 'Q %d', tags: [\"a\", \"b\", \"c\"], level: 0x%X, rank: 0%o})\n", i, i, i%4096, i%512+8)
	case 2:
		fmt.Fprintf(b, "(p%d)%s[r%d:KNOWS {since: %d, weight: 1..%d}]%s(q%d)  // relationship\n", i, a[0], i, 1990+i%30, i%100+2, a[1], i)
	case 3:
		fmt.Fprintf(b, "(p%d)%s%s(c%d:City {at: point`%d %d`})%s%s(s%d:State {code: ST, window: ...%d})\n", i, a[0], a[1], i, i%90, i%180, a[0], a[1], i, i%50+1)
	case 4:
		fmt.Fprintf(b, "@source(\"import-%d\") @rank(%d)\n[g%d:Group {title: `Group %d`, meta: {owner: \"x\", size: %d}} | p%d, q%d, (m%d)-->(n%d)]\n", i, i, i, i, i, i, i, i, i)
	}
}

// Agents returns a document of at least size bytes in which every third
// top-level pattern is a tool with a curried signature whose parameters have
// defaults, every sixth an agent with a fenced instruction that lists the two
// tools before it, and the rest the data patterns of [Mixed], in turn. Every
// identity is unique and every reference defined, so the document parses and
// compiles without diagnostics.
func Agents(size int) string {
	var b strings.Builder
	b.Grow(size + 4096)
	b.WriteString("{ kind: \"agents\", version: 1.0 }\n\n")
	data := 0
	for i := 0; b.Len() < size; i++ {
		// Patterns 6i and 6i+3 are tools, 6i+5 is an agent.
		fmt.Fprintf(&b, "// block %d: tools, an agent and data\n", i)
		writeTool(&b, 2*i)
		for range 2 {
			writeData(&b, data/dataPatterns, data%dataPatterns)
			data++
		}
		writeTool(&b, 2*i+1)
		writeData(&b, data/dataPatterns, data%dataPatterns)
		data++
		fmt.Fprintf(&b, "[agent%[1]d:Agent {\n  description: \"Agent number %[1]d\",\n  model: \"OpenAI/gpt-4o-mini\",\n  maxIterations: 5,\n  instruction: ```\n    You are agent %[1]d. Answer the user's questions about items, briefly and politely.\n    Find an item with tool%[2]d, then list its neighbours with tool%[3]d.\n    ```\n} |\n  tool%[2]d, tool%[3]d\n]\n\n", i, 2*i, 2*i+1)
	}
	return b.String()
}

// writeTool writes tool n of [Agents]: a curried signature of three
// parameters, two of them with defaults.
func writeTool(b *strings.Builder, n int) {
	fmt.Fprintf(b, "[tool%[1]d:Tool {description: \"Looks up item %[1]d by id\"} |\n  (id::Integer {description: \"The item's number in the store\", minimum: 1})==>(limit::Integer {default: %[2]d, minimum: 1})==>(verbose::Boolean {default: false})==>(::String)\n]\n", n, n%50+1)
}

// ToolAgentPairs returns n pairs of declarations, a tool and an agent that
// lists it, two lines each: 2n declarations in 4n lines, which compile
// without diagnostics.
func ToolAgentPairs(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "[tool%d:Tool {description: \"Finds the entry %d of the catalogue by its title\"} |\n  (title::String)==>(::String)]\n", i, i)
		fmt.Fprintf(&b, "[agent%d:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Answer with tool%d.\"} |\n  tool%d]\n", i, i, i)
	}
	return b.String()
}

// AgentFile returns an agent file of about n lines: agents with inline and shared
// tools, records and comments, the shape of what people edit.
func AgentFile(lines int) string {
	var b strings.Builder
	b.WriteString("{ kind: \"agents\" }\n\n")
	count := 1
	for i := 0; count < lines; i++ {
		block := fmt.Sprintf(`// Tools and agent %[1]d
[lookup%[1]d:Tool {description: "Finds record %[1]d by its id and returns the fields the caller asks for, or all of them"} |
  (id::Integer {description: "The item's number in the store", minimum: 1})==>(fields::Array {items: String, optional: true})==>(::Item%[1]d)
]

[Item%[1]d:Record {description: "An item"} |
  (id::Integer), (status::String {enum: ["open", "closed"]}), (total%[1]d::Number)
]

[agent%[1]d:Agent {
  description: "Answers questions about items (%[1]d)",
  model: "OpenAI/gpt-4o-mini",
  maxIterations: 5,
  temperature: 0.2,
  instruction: `+"```"+`
    You are a helpful assistant for the items of the store, and you answer briefly and politely.
    When the user asks about an item, use the lookup%[1]d tool to find it by its id, then
    summarise its status and total in one or two sentences; never invent an item or a total.
    `+"```"+`
} |
  lookup%[1]d,
  [greet%[1]d:Tool {description: "Greets someone"} |
    (personName::String {default: "world"})==>(::String)
  ]
]

`, i)
		b.WriteString(block)
		count += strings.Count(block, "\n")
	}
	return b.String()
}

// agentFileNames are the names AgentFile declares.
var agentFileNames = regexp.MustCompile(`\b((?:lookup|Item|agent|greet)\d+)\b`)

// AgentPackage returns the texts of the files of a package of n agent files
// of about lines lines each (see AgentFile), each declaring names of its own
// (lookup3 in the file i is lookup3_fi).
func AgentPackage(n, lines int) []string {
	one := AgentFile(lines)
	out := make([]string, n)
	for i := range out {
		out[i] = agentFileNames.ReplaceAllString(one, fmt.Sprintf("${1}_f%d", i))
	}
	return out
}

// SharedRecords returns an agent file of n records, each with two fields of
// the next (as billing and shipping both have an Address, only deeper), a
// tool that takes the first and returns an array of it, and an agent that
// lists the tool. Written out in place, its schema would double with every
// record.
func SharedRecords(n int) string {
	var b strings.Builder
	for i := range n {
		next := "String"
		if i+1 < n {
			next = fmt.Sprintf("R%d", i+1)
		}
		fmt.Fprintf(&b, "[R%d:Record | (a::%s), (b::%s)]\n", i, next, next)
	}
	b.WriteString("[deep:Tool {description: \"Returns the nested records below r\"} | (r::R0)==>(::Array {items: R0})]\n")
	b.WriteString("[ag:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Use deep.\"} | deep]\n")
	return b.String()
}
