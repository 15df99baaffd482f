// Recovery of a long broken unit on several cores.
//
// After an unclosed bracket the rest of a file is one unit, which recovery
// splits step by step (see batch.parseUnit). A step depends only on where it
// starts: it finds its unit afresh from there and keeps no state. So the
// unit is cut at lines that start a pattern in column one into chunks, and
// each chunk is recovered from its start on its own core, as if a step
// started there. The results are then put together in order: a chunk's
// steps are taken from the first of them that starts where the steps
// before it ended, with steps made again one after the other until that
// happens. The result is exactly what recovering the unit on one core
// gives.

package parser

import (
	"runtime"
	"slices"
	"sort"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/internal/parallel"
)

// parallelRecovery is the number of tokens from which a broken unit is
// recovered on several cores (a variable for tests).
var parallelRecovery = 1 << 15

// chunkRun is the recovery of a chunk of a unit, tokens [from, to), made as
// if a step started at from.
type chunkRun struct {
	from, to int
	// steps are the starts of its steps, ascending, and outAt the index in
	// out of each step's first result.
	steps []int
	outAt []int
	out   []unitResult
	// next is where its last step ended (at or after to).
	next int
}

// parseUnitParallel is parseUnit on several cores.
func (b *batch) parseUnitParallel(src string, toks []lexer.Token, eof int) {
	workers := runtime.GOMAXPROCS(0)
	runs := chunkRuns(src, toks, len(toks)/(4*workers))
	parallel.For(len(runs), func(i int) { runs[i].run(src, toks, eof) })
	// Room for every chunk's results at once: the unit may hold most of
	// the file's units, and growing their table by doubling would copy it
	// again and again.
	n := len(b.out)
	for i := range runs {
		n += len(runs[i].out)
	}
	b.out = slices.Grow(b.out, n-len(b.out))
	// The last chunk ends at the end of the unit: its steps settle the rest.
	p := 0
	for i := range runs {
		p = b.takeRun(src, toks, eof, p, &runs[i])
	}
}

// chunkRuns cuts toks into chunks of about size tokens, each starting at a
// line that starts a pattern in column one (the first at 0).
func chunkRuns(src string, toks []lexer.Token, size int) []chunkRun {
	size = max(size, 1)
	runs := []chunkRun{{from: 0}}
	for i := size; i < len(toks); i++ {
		if startsLineIn(src, 0, toks[i].Pos.Offset) && opensPattern(&toks[i]) {
			runs[len(runs)-1].to = i
			runs = append(runs, chunkRun{from: i})
			i += size - 1
		}
	}
	runs[len(runs)-1].to = len(toks)
	return runs
}

// run recovers the chunk: steps from r.from until one ends at or after r.to.
func (r *chunkRun) run(src string, toks []lexer.Token, eof int) {
	// Recovery makes a unit at least at every line of the chunk that starts
	// a pattern in column one: room for that many, rather than growing the
	// table by doubling.
	n := 1
	for i := r.from + 1; i < r.to; i++ {
		if startsLineIn(src, 0, toks[i].Pos.Offset) && opensPattern(&toks[i]) {
			n++
		}
	}
	b := batch{out: make([]unitResult, 0, n+n/8)}
	p := r.from
	for p < r.to {
		r.steps = append(r.steps, p)
		r.outAt = append(r.outAt, len(b.out))
		p, _ = b.recoverStep(src, 0, toks, p, eof)
	}
	r.out, r.next = b.out, p
}

// takeRun appends the results of the steps from p on within r's chunk and
// returns where they end: r's own from the first of its steps that starts
// where the steps before it ended, which are made again until then.
func (b *batch) takeRun(src string, toks []lexer.Token, eof, p int, r *chunkRun) int {
	for p < r.to {
		if k := sort.SearchInts(r.steps, p); k < len(r.steps) && r.steps[k] == p {
			b.out = append(b.out, r.out[r.outAt[k]:]...)
			return r.next
		}
		p, _ = b.recoverStep(src, 0, toks, p, eof)
	}
	return p
}
