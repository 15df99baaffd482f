// The garbage collector's target for the server, and giving memory back
// while the editor is idle.

package lsp

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// GC targets by the size of the live heap. Parsing and compiling a document
// allocate several times its live heap; the heap grows to its live size
// times (1 + target/100) before the collector runs, and the process keeps
// most of what it has grown to. A small heap (a few agent files) is
// collected at Go's usual target: a collection costs little there, and a
// higher target only makes the server hold several times the memory its
// documents need. A heap of tens of megabytes (a document of tens of
// thousands of lines) is collected at twice that target, so that an edit's
// analysis is interrupted less; a heap that is already large at the usual
// target again, since every page it grows by is touched for the first time,
// which costs more than the collection saves (opening a 10 MB file took half
// as long again at a higher target).
const (
	gcPercentSmall  = 100
	gcPercentMedium = 200
	gcPercentLarge  = 100
	// gcCheckEvery is how often the live heap is looked at.
	gcCheckEvery = 100 * time.Millisecond
)

// gcMediumHeap and gcLargeHeap are the live heaps from which the heap counts
// as medium and as large (variables for tests).
var (
	gcMediumHeap uint64 = 32 << 20
	gcLargeHeap  uint64 = 128 << 20
)

// gcIdleAfter is how long the server must have had nothing to do (no change
// of a document, no analysis running) before it gives the memory it no
// longer uses back to the system (a variable for tests).
var gcIdleAfter = time.Second

// gcLastBusy is when the server was last busy (Unix nanoseconds), and
// gcReleased whether the memory was given back since.
var (
	gcLastBusy atomic.Int64
	gcReleased atomic.Bool
)

// busy records that the server is working on a document now.
func busy() {
	gcLastBusy.Store(time.Now().UnixNano())
	gcReleased.Store(false)
}

// gcTarget returns the collector's target for a live heap of live bytes.
func gcTarget(live uint64) int {
	switch {
	case live >= gcLargeHeap:
		return gcPercentLarge
	case live >= gcMediumHeap:
		return gcPercentMedium
	}
	return gcPercentSmall
}

// TuneGC sets the garbage collector's target by the size of the live heap
// until ctx is done (see gcTarget), and once the server has been idle for a
// second after working on a document it collects and gives the memory it
// no longer uses back to the system, so that the memory an editor session
// holds between bursts of typing is what its documents need. The gram-lsp
// command runs it unless GOGC is set.
func TuneGC(ctx context.Context) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	current := debug.SetGCPercent(gcPercentSmall)
	defer debug.SetGCPercent(current)
	percent := gcPercentSmall
	tick := time.NewTicker(gcCheckEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if last := gcLastBusy.Load(); last != 0 && !gcReleased.Load() && time.Since(time.Unix(0, last)) >= gcIdleAfter {
			gcReleased.Store(true)
			debug.FreeOSMemory()
		}
		metrics.Read(sample)
		want := gcPercentSmall
		if sample[0].Value.Kind() == metrics.KindUint64 {
			want = gcTarget(sample[0].Value.Uint64())
		}
		if want != percent {
			debug.SetGCPercent(want)
			percent = want
		}
	}
}
