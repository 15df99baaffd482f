// The garbage collector's target for the server.

package lsp

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// GC targets: parsing and compiling a document allocate several times its
// live heap, and collecting less often keeps an edit's diagnostics fast in
// a document of some megabytes; a heap that is already large is collected
// at Go's usual target instead, since every page it grows by is touched for
// the first time, which costs more than the collection saves (opening a
// 10 MB file took half as long again at the higher target).
const (
	gcPercentSmall = 400
	gcPercentLarge = 100
	// gcCheckEvery is how often the live heap is looked at.
	gcCheckEvery = 100 * time.Millisecond
)

// gcLargeHeap is the live heap from which the heap counts as large (a
// variable for tests).
var gcLargeHeap uint64 = 128 << 20

// TuneGC sets the garbage collector's target by the size of the live heap
// until ctx is done: 400 while it is under 128 MB, 100 above. The gram-lsp
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
		metrics.Read(sample)
		want := gcPercentSmall
		if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() >= gcLargeHeap {
			want = gcPercentLarge
		}
		if want != percent {
			debug.SetGCPercent(want)
			percent = want
		}
	}
}
