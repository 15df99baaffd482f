// Moving the units after an edit while the document is lowered.
//
// After an edit, the units after it keep their syntax moved by the change
// in length: a copy of each, which costs about as much as lowering it. The
// copies are made on other goroutines, a chunk of units at a time in order,
// while the document is lowered from the first unit that changed: lowering
// waits for a unit's chunk before it reads the unit, so the two overlap on
// two cores instead of following each other.

package parser

import (
	"runtime"
	"slices"
	"sync/atomic"
)

// parallelShift is the number of units from which they are moved on other
// goroutines; moveChunk is how many units one chunk holds (variables for
// tests).
var (
	parallelShift = 1024
	moveChunk     = 64
)

// moving tells which units are still being moved: those from the index
// from on, a chunk of moveChunk units at a time, each chunk's channel closed
// once its units are in place.
type moving struct {
	from int
	done []chan struct{}
}

// move appends to doc's units the units moved by delta in the new text src,
// of generation gen: at once when they are few, else on other goroutines
// (see unitInPlace).
func (doc *Document) move(units []unitResult, src string, delta int, gen int32) {
	n := len(doc.units)
	doc.units = slices.Grow(doc.units, len(units))[:n+len(units)]
	dst := doc.units[n:]
	if len(units) < parallelShift || runtime.GOMAXPROCS(0) < 2 {
		for i := range units {
			dst[i] = units[i].shifted(src, delta, gen)
		}
		return
	}
	m := &moving{from: n, done: make([]chan struct{}, (len(units)+moveChunk-1)/moveChunk)}
	for i := range m.done {
		m.done[i] = make(chan struct{})
	}
	// One core lowers; the others move.
	var next atomic.Int32
	for range runtime.GOMAXPROCS(0) - 1 {
		go func() {
			for {
				c := int(next.Add(1)) - 1
				if c >= len(m.done) {
					return
				}
				for i := c * moveChunk; i < min((c+1)*moveChunk, len(units)); i++ {
					dst[i] = units[i].shifted(src, delta, gen)
				}
				close(m.done[c])
			}
		}()
	}
	doc.moving = m
}

// unitInPlace waits until doc.units[i] is in place.
func (doc *Document) unitInPlace(i int) {
	if m := doc.moving; m != nil && i >= m.from {
		<-m.done[(i-m.from)/moveChunk]
	}
}

// unitsInPlace waits until every unit is in place.
func (doc *Document) unitsInPlace() {
	if m := doc.moving; m != nil {
		for _, c := range m.done {
			<-c
		}
		doc.moving = nil
	}
}
