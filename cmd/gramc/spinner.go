package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// spinner shows activity on a terminal while the model thinks. A nil
// spinner does nothing.
type spinner struct {
	w       io.Writer
	mu      sync.Mutex
	running bool
	paused  bool
	done    chan struct{}
	wg      sync.WaitGroup
}

func newSpinner(w io.Writer) *spinner { return &spinner{w: w} }

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// start shows the spinner until stop.
func (sp *spinner) start() {
	if sp == nil {
		return
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.running {
		return
	}
	sp.running = true
	sp.done = make(chan struct{})
	sp.wg.Add(1)
	go sp.loop(sp.done)
}

func (sp *spinner) loop(done chan struct{}) {
	defer sp.wg.Done()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		sp.mu.Lock()
		if !sp.paused {
			fmt.Fprintf(sp.w, "\r%s thinking…", spinFrames[i%len(spinFrames)])
		}
		sp.mu.Unlock()
		select {
		case <-done:
			return
		case <-t.C:
		}
	}
}

// stop hides the spinner.
func (sp *spinner) stop() {
	if sp == nil {
		return
	}
	sp.mu.Lock()
	if !sp.running {
		sp.mu.Unlock()
		return
	}
	sp.running = false
	close(sp.done)
	sp.mu.Unlock()
	sp.wg.Wait()
	sp.mu.Lock()
	fmt.Fprint(sp.w, "\r\033[K")
	sp.mu.Unlock()
}

// pause and resume keep the spinner off the screen while a line is printed.
func (sp *spinner) pause() {
	if sp == nil {
		return
	}
	sp.mu.Lock()
	sp.paused = true
	if sp.running {
		fmt.Fprint(sp.w, "\r\033[K")
	}
	sp.mu.Unlock()
}

func (sp *spinner) resume() {
	if sp == nil {
		return
	}
	sp.mu.Lock()
	sp.paused = false
	sp.mu.Unlock()
}
