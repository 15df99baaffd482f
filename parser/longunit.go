// Recovery of a long unit while it is still being lexed.
//
// A unit that goes on for many tokens (the rest of a file after an unclosed
// bracket) is recovered chunk by chunk on several cores (see
// recover_parallel.go) once it is whole. So that the cores need not wait for
// the lexer to reach its end, the cutter starts the chunks as their tokens
// arrive: a chunk is recovered from the tokens lexed so far, a step that
// looked at all of them is dropped (it needs more), and what the chunks did
// is taken up when the unit is whole. A step depends only on the tokens it
// looked at, so a step that looked at fewer than were lexed is what it would
// be on the whole unit.

package parser

import (
	"runtime"
	"sync"

	"github.com/alecthomas/participle/v2/lexer"
)

// aheadChunk is how many tokens a chunk started ahead holds, and
// aheadMargin how many tokens past its end are lexed before it starts
// (variables for tests).
var (
	aheadChunk  = 1 << 15
	aheadMargin = 1 << 12
)

// aheadRecovery holds the chunks of a long unit started while it was being
// lexed.
type aheadRecovery struct {
	start int // the unit's first token in its batch
	runs  []*chunkRun
	next  int // where the next chunk starts, from the unit's start
	scan  int // where the search for the next chunk's start goes on
	work  chan *chunkRun
	wg    sync.WaitGroup
}

// ahead starts the next chunk of the long unit at the end of b, if enough of
// it is lexed; it is called as tokens are added to b.
func (c *cutter) ahead(b *batch, src string) {
	us := 0
	if len(b.cuts) > 0 {
		us = b.cuts[len(b.cuts)-1]
	}
	n := len(b.toks) - us
	if n < parallelRecovery || n%aheadMargin != 0 {
		return
	}
	a := b.ahead
	if a == nil || a.start != us {
		a = &aheadRecovery{start: us, work: make(chan *chunkRun, 1024)}
		for w := 1; w < runtime.GOMAXPROCS(0); w++ {
			a.wg.Add(1)
			go func(work <-chan *chunkRun) {
				defer a.wg.Done()
				for r := range work {
					r.run(src, r.toks, -1)
				}
			}(a.work)
		}
		b.ahead = a
	}
	if a.work == nil {
		return
	}
	toks := b.toks[us:]
	for i := max(a.next+aheadChunk, a.scan); i < n-aheadMargin; i++ {
		if startsLine(src, toks[i].Pos.Offset) && opensPattern(&toks[i]) {
			r := &chunkRun{from: a.next, to: i, toks: toks[:n:n], prefix: true}
			select {
			case a.work <- r:
				a.runs = append(a.runs, r)
				a.next = i
				i += aheadChunk - 1
			default:
				// The queue is full: the rest is recovered when the
				// unit is whole.
				close(a.work)
				a.work = nil
				return
			}
		}
	}
	a.scan = max(a.scan, n-aheadMargin)
}

// finish stops starting chunks and waits for those started.
func (a *aheadRecovery) finish() {
	if a == nil {
		return
	}
	if a.work != nil {
		close(a.work)
		a.work = nil
	}
	a.wg.Wait()
}

// takeAhead returns the chunks started ahead for the unit toks, which starts
// at token start of b, and where they end; none when the unit is another.
func (b *batch) takeAhead(toks []lexer.Token) ([]chunkRun, int) {
	a := b.ahead
	if a == nil || a.start != b.unitStart || len(a.runs) == 0 {
		return nil, 0
	}
	a.finish()
	runs := make([]chunkRun, len(a.runs))
	for i, r := range a.runs {
		runs[i] = *r
	}
	return runs, a.next
}
