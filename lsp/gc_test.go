package lsp

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent returns the collector's current target.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// TestTuneGC: the target is 400 while the live heap is small, 100 once it
// is large, 400 again once it is small, and what it was when TuneGC stops.
func TestTuneGC(t *testing.T) {
	defer func(n uint64) { gcLargeHeap = n }(gcLargeHeap)
	gcLargeHeap = 32 << 20
	before := gcPercent()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		TuneGC(ctx)
		close(done)
	}()
	waitFor := func(want int) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for gcPercent() != want {
			if time.Now().After(deadline) {
				t.Fatalf("the target is %d, want %d", gcPercent(), want)
			}
			runtime.GC()
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor(gcPercentSmall)
	large := make([]byte, 64<<20)
	for i := range large {
		large[i] = byte(i)
	}
	waitFor(gcPercentLarge)
	runtime.KeepAlive(large)
	large = nil
	waitFor(gcPercentSmall)
	cancel()
	<-done
	if got := gcPercent(); got != before {
		t.Errorf("after TuneGC stopped the target is %d, want %d", got, before)
	}
}
