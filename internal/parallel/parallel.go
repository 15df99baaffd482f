// Package parallel runs the calls of a function on all cores: [For] for
// each index of a range, [Map] for each element of a slice, its results in
// the slice's order.
package parallel

import (
	"runtime"
	"sync"
)

// For calls f with each of 0 to n-1 on all cores, and returns once every
// call has.
func For(n int, f func(i int)) {
	if n == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// Map applies f to every element of in on all cores and returns the
// results in the order of in.
func Map[T, R any](in []T, f func(T) R) []R {
	out := make([]R, len(in))
	For(len(in), func(i int) { out[i] = f(in[i]) })
	return out
}
