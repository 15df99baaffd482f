// Package heapstat measures heap use for benchmarks: the peak while a
// function runs, sampled, and the live heap a value holds.
//
// Entry points: [Peak] for the peak heap while a function runs, [Start]
// for the same around code that is not one function, [Live] for the live
// heap a value holds.
package heapstat

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// Peak samples the heap every millisecond while f runs and returns the
// largest value seen above the heap in use before f started (garbage not
// yet collected included).
func Peak(f func()) uint64 {
	stop := Start()
	f()
	return stop()
}

// Start starts sampling the heap every millisecond, as [Peak] does, and
// returns the function that stops it and returns the peak above the heap in
// use when sampling started.
func Start() func() uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return max(peak, base) - base
	}
}

// Live returns how much live heap the value f returns holds: the heap in use
// after a collection with the value alive, less the heap before.
func Live(f func() any) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	return max(after.HeapAlloc, before.HeapAlloc) - before.HeapAlloc
}
