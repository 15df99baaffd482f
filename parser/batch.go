// Batches: the token stream cut into runs of whole units, parsed on all
// cores and lowered in order as they are parsed.

package parser

import (
	"runtime"
	"slices"
	"sync"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/grammar"
)

// batchTokens is roughly how many tokens a worker receives at a time.
const batchTokens = 256

// batch is a run of whole units of the token stream, parsed by one worker.
type batch struct {
	// toks are the batch's tokens, in a buffer from tokenBuffers; eof is the
	// offset of what follows them.
	toks []lexer.Token
	eof  int
	cuts []int // unit i is tokens [cuts[i-1], cuts[i]) of the batch (cuts[-1] = 0)
	// deep holds, per unit, the offset of the bracket that exceeds MaxDepth, or -1.
	deep []int
	// starts holds, per unit, the splitter's state before its first token.
	starts []splitState
	out    []unitResult
	// parsed is done once the batch is parsed, when it is parsed in
	// parallel.
	parsed sync.WaitGroup
}

// tokenBuffers recycles the token buffers of batches: tokens are copied once,
// from the scanner into a buffer, and the buffer is used again once its
// batch is parsed.
var tokenBuffers = sync.Pool{New: func() any { return new([]lexer.Token) }}

// maxPooledTokens is the largest token buffer kept for reuse: the buffer of
// a long unit (the rest of a file after an unclosed bracket) is let go as
// soon as the unit is parsed, rather than kept alive, and scanned by the
// collector, while the rest of the document is lowered.
const maxPooledTokens = 1 << 16

// collectTokens is the size of a token buffer, in tokens, from which the
// heap is collected as soon as it is let go. Such a buffer (a long unit of a
// large file, 64 bytes a token) was most of the live heap while it was
// parsed, and the collector's next target, twice the live heap, was set by
// it: collected at once, the target shrinks with it, rather than letting
// the heap grow to twice the buffer's size again before the next collection.
const collectTokens = 1 << 20

// cut ends a unit at the batch's current end; at is the splitter's state
// before the unit's first token.
func (b *batch) cut(sp *splitter, at splitState) {
	b.cuts = append(b.cuts, len(b.toks))
	b.deep = append(b.deep, sp.tooDeep)
	b.starts = append(b.starts, at)
	sp.tooDeep = -1
}

// parse parses every unit of the batch, then gives its token buffer back.
func (b *batch) parse(src string) {
	b.out = slices.Grow(b.out[:0], len(b.cuts))
	start := 0
	for i, cut := range b.cuts {
		eof := b.eof
		if cut < len(b.toks) {
			eof = b.toks[cut].Pos.Offset
		}
		b.parseSplit(src, b.toks[start:cut], eof, b.deep[i], b.starts[i])
		start = cut
	}
	buf := b.toks[:0]
	// The tokens are not needed once the units are parsed; the units are
	// kept until the pipeline takes them (see pipeline.take).
	b.toks = nil
	if cap(buf) <= maxPooledTokens {
		tokenBuffers.Put(&buf)
	} else if cap(buf) >= collectTokens {
		runtime.GC()
	}
}

// cutter cuts the token stream of a scanner into batches of whole units,
// about batchTokens tokens each.
type cutter struct {
	sc   *grammar.Scanner
	sp   splitter
	at   splitState  // the splitter's state before the current unit's first token
	held lexer.Token // the first token of the next batch, when one ended
	hold bool
	done bool
	size int // the length of the text
}

// longUnit is the number of tokens from which a batch's buffer, when it is
// full, grows to what the rest of the text is likely to hold rather than by
// doubling: a unit that goes on that long (the rest of a file after an
// unclosed bracket) is often most of the text, and copying a buffer that
// large again and again costs more than its parse.
const longUnit = 1 << 15

// grow makes room in b's buffer for the token at off, as append would but
// for a long batch, whose buffer grows in proportion to the rest of the
// text.
func (c *cutter) grow(b *batch, off int) {
	n := len(b.toks)
	if n < cap(b.toks) || n < longUnit {
		return
	}
	first := b.toks[0].Pos.Offset
	if off <= first {
		return
	}
	// Tokens per byte so far, times the bytes of the whole batch if it goes
	// on to the end of the text, with a margin.
	want := int(float64(n)/float64(off-first)*float64(c.size-first)*1.05) + 1024
	if want > 2*n {
		b.toks = slices.Grow(b.toks, want-n)
	}
}

// next returns the next batch, or nil at the end.
func (c *cutter) next() *batch {
	if c.done {
		return nil
	}
	buf := tokenBuffers.Get().(*[]lexer.Token)
	b := spareBatches.Get().(*batch)
	b.toks = (*buf)[:0]
	if c.hold {
		b.toks = append(b.toks, c.held)
		c.hold = false
	}
	for {
		t := c.sc.Next()
		if t.Type == grammar.EOF {
			c.done = true
			b.eof = t.Pos.Offset
			if len(b.toks) > 0 {
				b.cut(&c.sp, c.at)
			}
			break
		}
		before := c.sp.splitState
		if c.sp.boundary(&t) && len(b.toks) > 0 {
			b.cut(&c.sp, c.at)
			c.at = before
			if len(b.toks) >= batchTokens {
				c.held, c.hold, b.eof = t, true, t.Pos.Offset
				break
			}
		}
		c.grow(b, t.Pos.Offset)
		b.toks = append(b.toks, t)
	}
	if len(b.toks) == 0 {
		*buf = b.toks
		tokenBuffers.Put(buf)
		return nil
	}
	return b
}

// pipeline parses batches, on all cores from parallelMin bytes of input on,
// and gives their units to a lowerer, if any, in order.
type pipeline struct {
	src      string
	lw       *unitLowerer
	parallel bool
	work     chan *batch
	workers  sync.WaitGroup
	// ordered holds the parallel batches, in order, for the goroutine that
	// lowers each and takes its units once it is parsed.
	ordered chan *batch
	taking  sync.WaitGroup
	// units are the units of the batches parsed (and lowered), in order.
	units *unitBuilder
}

func startPipeline(src string, lw *unitLowerer) *pipeline {
	p := &pipeline{src: src, lw: lw, parallel: len(src) >= parallelMin && runtime.GOMAXPROCS(0) > 1, units: newUnitBuilder()}
	if !p.parallel {
		return p
	}
	p.work = make(chan *batch, 4)
	for i := 0; i < runtime.GOMAXPROCS(0); i++ {
		p.workers.Add(1)
		go func() {
			defer p.workers.Done()
			for b := range p.work {
				b.parse(src)
				b.parsed.Done()
			}
		}()
	}
	p.ordered = make(chan *batch, 64)
	p.taking.Add(1)
	go func() {
		defer p.taking.Done()
		for b := range p.ordered {
			b.parsed.Wait()
			p.lowerAndTake(b)
		}
	}()
	return p
}

// add parses b (and lowers it), or hands it to the goroutines that do.
func (p *pipeline) add(b *batch) {
	if p.parallel {
		b.parsed.Add(1)
		p.work <- b
		p.ordered <- b
		return
	}
	b.parse(p.src)
	p.lowerAndTake(b)
}

// lowerAndTake gives the units of b, parsed, to the lowerer, if any, adds
// them to the list, and gives the batch back for reuse.
func (p *pipeline) lowerAndTake(b *batch) {
	if p.lw != nil {
		for i := range b.out {
			p.lw.unit(&b.out[i])
		}
	}
	p.units.add(b.out)
	b.recycle()
}

// spareBatches are batches whose units were taken, for the cutter to fill
// again: the lists that find and hold a batch's units are made a few
// times for a document, not for each of its batches (once for each batch,
// they left small pieces of garbage all over a large file's heap, among
// its syntax, where nothing else could use the room once collected).
var spareBatches = sync.Pool{New: func() any { return new(batch) }}

// maxSpareUnits is the most units a spare batch keeps room for: the lists
// of a batch that held a long run of units are let go.
const maxSpareUnits = 1 << 10

// recycle empties b, whose units were taken, and makes it a spare.
func (b *batch) recycle() {
	if cap(b.out) > maxSpareUnits || cap(b.cuts) > maxSpareUnits {
		b.out = nil
		return
	}
	clear(b.out) // drop the syntax
	*b = batch{cuts: b.cuts[:0], deep: b.deep[:0], starts: b.starts[:0], out: b.out[:0]}
	spareBatches.Put(b)
}

// wait returns the units once every batch added is parsed and lowered.
func (p *pipeline) wait() unitList {
	if p.parallel {
		close(p.work)
		p.workers.Wait()
		close(p.ordered)
		p.taking.Wait()
	}
	return p.units.list()
}
