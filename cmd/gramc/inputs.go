package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// collectInputs expands the arguments of command cmd into inputs: files as
// given, directories walked for regular *.gram files in path order (hidden
// directories skipped), - as standard input.
// Paths are cleaned and listed once. It reports whether an argument could
// not be read.
func collectInputs(e *env, cmd string, args []string) ([]checkInput, bool) {
	var inputs []checkInput
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			inputs = append(inputs, checkInput{path: p})
		}
	}
	bad := false
	stdinRead := false
	for _, arg := range args {
		if arg == "-" {
			if stdinRead {
				continue
			}
			stdinRead = true
			b, err := io.ReadAll(e.stdin)
			if err != nil {
				fmt.Fprintf(e.stderr, "gramc %s: reading standard input: %v\n", cmd, err)
				bad = true
				continue
			}
			inputs = append(inputs, checkInput{path: "<stdin>", stdin: b, isStd: true})
			continue
		}
		p := filepath.Clean(arg)
		info, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(e.stderr, "gramc %s: %v\n", cmd, err)
			bad = true
			continue
		}
		if !info.IsDir() {
			add(p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".gram") {
				add(path)
			}
			return nil
		})
		if err != nil {
			fmt.Fprintf(e.stderr, "gramc %s: %v\n", cmd, err)
			bad = true
		}
	}
	return inputs, bad
}

// parallelMap applies f to every input on all cores and returns the results in
// input order.
func parallelMap[T, R any](inputs []T, f func(T) R) []R {
	results := make([]R, len(inputs))
	workers := min(runtime.GOMAXPROCS(0), len(inputs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = f(inputs[i])
			}
		}()
	}
	for i := range inputs {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}
