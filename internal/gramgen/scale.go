package gramgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Clean returns a data document of at least size bytes, the shape of a large graph
// kept in one file: nodes with records, relationships between them, groups whose
// element lists refer to nodes defined elsewhere in the file, and, every fortieth
// block, a record type, a tool and an agent using it. It parses and compiles
// without diagnostics. Equal sizes give equal documents.
func Clean(size int) string {
	return scaleDoc(size, nil)
}

// Broken returns a document of at least size bytes with the shape of [Clean] and
// many mistakes, chosen by a random source seeded with seed (equal arguments give
// equal documents):
//
//   - a third of the references in element lists name an identity defined nowhere,
//     half of them a near miss of a defined name (a did-you-mean case);
//   - one pattern in ten carries a syntax error drawn from [SyntaxErrorKinds]:
//     stray tokens and punctuation after a node, malformed arrows, unclosed
//     brackets and strings, stray @ and more;
//   - one block in twenty repeats a record key, and one in twenty repeats a
//     definition.
func Broken(size int, seed uint64) string {
	return scaleDoc(size, rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)))
}

// SyntaxErrorKinds lists the mistakes [Broken] writes, each as a template: %[1]d
// is the block number. Every line is one top-level pattern with one syntax error.
var SyntaxErrorKinds = []string{
	"(x%[1]d) x",                           // stray identifier after a node
	"(x%[1]d) >",                           // stray punctuation after a node
	"(x%[1]d) @ #",                         // stray @ and an unknown character
	"(x%[1]d)<-->>(y%[1]d)",                // malformed arrow
	"(x%[1]d)--(",                          // unclosed node at the end of a path
	"[x%[1]d | (y%[1]d)-[r%[1]d]->]",       // relationship without its right node
	"[x%[1]d:Group | p%[1]d, q%[1]d",       // unclosed subject pattern
	"(x%[1]d {name: \"open string})",       // unclosed string
	"(x%[1]d:Person {age: 3",               // unclosed record and node
	"(x%[1]d {k: })",                       // key without a value
	"@ (x%[1]d)",                           // stray @
	"@note( (x%[1]d)",                      // unclosed annotation
	"(x%[1]d:)",                            // colon without a label
	"(x%[1]d)) ]",                          // stray closing brackets
	"(x%[1]d {a: 1,, b: 2})",               // doubled comma
	"(x%[1]d)-[:R {w: 1}->(y%[1]d)",        // unclosed relationship bracket
	"(x%[1]d) (y%[1]d) ,",                  // juxtaposed nodes and a stray comma
	"(x%[1]d {name: 'ok', 7: 8})",          // number as a key
	"[x%[1]d | ]",                          // empty element after the bar
	"(x%[1]d)==>>(y%[1]d)",                 // malformed double arrow
	"(x%[1]d {tags: [1, 2, }) ~~ (y%[1]d)", // unclosed list, bad arrow
}

// scaleDoc writes blocks until the document reaches size bytes. r == nil writes
// the clean document.
func scaleDoc(size int, r *rand.Rand) string {
	var b strings.Builder
	b.Grow(size + 4096)
	b.WriteString("{ kind: \"graph\", version: 1 }\n\n")
	for i := 0; b.Len() < size; i++ {
		scaleBlock(&b, i, r)
	}
	return b.String()
}

// people names the persons of a block so near misses look like real typos.
var people = []string{"alice", "bruno", "chandra", "dmitri", "eleanor", "fatima", "gustav", "hiroshi"}

// scaleBlock writes about ten top-level patterns. Block i defines p<i>, q<i>, c<i>,
// a person named after people[i%8] and the group g<i>; its group refers to this
// block's nodes and the previous block's (forward and backward references both
// resolve).
func scaleBlock(b *strings.Builder, i int, r *rand.Rand) {
	chance := func(n int) bool { return r != nil && r.IntN(n) == 0 }
	who := fmt.Sprintf("%s%d", people[i%len(people)], i)
	// Syntax errors replace one of the ten patterns of the block, on average one
	// pattern in ten.
	bad := -1
	if r != nil {
		bad = r.IntN(10)
	}
	line := func(k int, format string, args ...any) {
		if k == bad {
			fmt.Fprintf(b, SyntaxErrorKinds[r.IntN(len(SyntaxErrorKinds))]+"\n", i)
			return
		}
		fmt.Fprintf(b, format+"\n", args...)
	}
	ref := func(id string) string {
		if r == nil || r.IntN(3) != 0 {
			return id
		}
		if r.IntN(2) == 0 {
			return "missing" + id // nothing close to it
		}
		// A near miss: one letter too many.
		return id[:1] + "x" + id[1:]
	}
	key := "age"
	if chance(20) {
		key = "name" // duplicate key
	}
	fmt.Fprintf(b, "// block %d\n", i)
	line(0, "(p%d:Person {name: \"Person %d\", %s: %d, active: true})", i, i, key, 20+i%60)
	line(1, "(q%d:Person:Employee {name: 'Q %d', tags: [\"a\", \"b\"], level: %d})", i, i, i%7)
	line(2, "(c%d:City {name: \"City %d\", population: %d})", i, i, 1000+i*7)
	line(3, "(%s:Person {name: \"%s\", score: 0.%d})", who, who, i%97)
	line(4, "(p%d)-[k%d:KNOWS {since: %d}]->(q%d)", i, i, 1990+i%30, i)
	line(5, "(q%d)-[:LIVES_IN]->(c%d)<-[:VISITED {times: %d}]-(%s)", i, i, i%5+1, who)
	prev := i - 1
	if prev < 0 {
		prev = 0
	}
	line(6, "[g%d:Group {title: \"Group %d\"} | %s, %s, %s, %s]", i, i, ref(fmt.Sprintf("p%d", i)), ref(fmt.Sprintf("q%d", i)), ref(who), ref(fmt.Sprintf("c%d", prev)))
	line(7, "@source(\"import-%d\") (e%d:Event {at: %d})-[:IN]->(c%d)", i, i, i, i)
	if chance(20) {
		line(8, "(p%d:Person {name: \"again\"})", i) // duplicate definition
	} else {
		line(8, "(p%d)-[:FRIEND]->(%s)", i, who)
	}
	line(9, "[t%d:Team | %s, (x%d)-->(y%d)]", i, ref(fmt.Sprintf("g%d", i)), i, i)
	if i%40 == 0 {
		fmt.Fprintf(b, "\n[Item%[1]d:Record {description: \"An item\"} |\n  (id::Integer), (status::String {enum: [\"open\", \"closed\"]}), (total%[1]d::Number)\n]\n", i)
		fmt.Fprintf(b, "[lookup%[1]d:Tool {description: \"Finds item %[1]d by its id\"} |\n  (id::Integer {description: \"The item's number in the store\", minimum: 1})==>(::Item%[1]d)\n]\n", i)
		fmt.Fprintf(b, "[agent%[1]d:Agent {\n  description: \"Answers questions about items\",\n  model: \"OpenAI/gpt-4o-mini\",\n  instruction: \"Use lookup%[1]d to find an item by its id.\"\n} |\n  lookup%[1]d\n]\n", i)
	}
	b.WriteString("\n")
}
