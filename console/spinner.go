package console

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Spinner shows activity on a terminal while the model thinks. A nil
// Spinner does nothing.
type Spinner struct {
	w       io.Writer
	mu      sync.Mutex
	running bool
	paused  bool
	done    chan struct{}
	wg      sync.WaitGroup
}

// NewSpinner returns a spinner that writes on w.
func NewSpinner(w io.Writer) *Spinner { return &Spinner{w: w} }

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// Start shows the spinner until Stop.
func (sp *Spinner) Start() {
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

// loop draws the spinner until done is closed.
func (sp *Spinner) loop(done chan struct{}) {
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

// Stop hides the spinner.
func (sp *Spinner) Stop() {
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

// Pause keeps the spinner off the screen while a line is printed, until
// Resume.
func (sp *Spinner) Pause() {
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

// Resume shows the spinner again after Pause.
func (sp *Spinner) Resume() {
	if sp == nil {
		return
	}
	sp.mu.Lock()
	sp.paused = false
	sp.mu.Unlock()
}
