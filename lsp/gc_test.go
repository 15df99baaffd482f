package lsp

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// gcPercent returns the collector's current target.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// TestTuneGC: the target is the small heap's while the live heap is small,
// the medium heap's and then the large heap's as it grows, the small heap's
// again once it is small, and what it was when TuneGC stops.
func TestTuneGC(t *testing.T) {
	defer func(m, l uint64) { gcMediumHeap, gcLargeHeap = m, l }(gcMediumHeap, gcLargeHeap)
	gcMediumHeap, gcLargeHeap = 16<<20, 48<<20
	before := debug.SetGCPercent(17)
	defer debug.SetGCPercent(before)
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
	fill := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i)
		}
		return b
	}
	medium := fill(24 << 20)
	waitFor(gcPercentMedium)
	large := fill(40 << 20)
	waitFor(gcPercentLarge)
	runtime.KeepAlive(medium)
	runtime.KeepAlive(large)
	medium, large = nil, nil
	waitFor(gcPercentSmall)
	cancel()
	<-done
	if got := gcPercent(); got != 17 {
		t.Errorf("after TuneGC stopped the target is %d, want 17", got)
	}
}

// TestIdleReleasesMemory: once the server has been idle for gcIdleAfter
// after working, TuneGC gives the heap it no longer uses back to the
// system, once; work makes it do so again after the next idle spell.
func TestIdleReleasesMemory(t *testing.T) {
	defer func(d time.Duration) { gcIdleAfter = d }(gcIdleAfter)
	gcIdleAfter = 150 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go TuneGC(ctx)
	released := []metrics.Sample{{Name: "/memory/classes/heap/released:bytes"}}
	releasedNow := func() uint64 {
		metrics.Read(released)
		return released[0].Value.Uint64()
	}
	for round := 0; round < 2; round++ {
		// 64 MB allocated and dropped while busy: the heap keeps it.
		busy()
		garbage := make([][]byte, 64)
		for i := range garbage {
			garbage[i] = make([]byte, 1<<20)
			garbage[i][0] = 1
		}
		runtime.KeepAlive(garbage)
		garbage = nil
		before := releasedNow()
		deadline := time.Now().Add(5 * time.Second)
		for !gcReleased.Load() || releasedNow() < before+32<<20 {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: released %d MB of 64 MB dropped after an idle spell", round, (releasedNow()-before)>>20)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
