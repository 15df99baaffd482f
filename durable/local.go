// The store of a user's own runs (gramc run and gramc runs): where it is
// kept without a URL, whether it exists yet, and a binder that a process
// hands the run it has built itself to.

package durable

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gramlang/gram/runtime"
)

// DefaultStore is the store used when none is given: runs.db in gram's
// directory of the user's state directory ($XDG_STATE_HOME, else
// ~/.local/state).
func DefaultStore() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "gram", "runs.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", errors.New("there is no default store: neither XDG_STATE_HOME nor HOME is set; give one with --store PATH")
	}
	return filepath.Join(home, ".local", "state", "gram", "runs.db"), nil
}

// MissingStore returns the path of the SQLite file that store names (the
// [DefaultStore] when it is empty), when that file does not exist: a
// command that only reads or changes runs says so rather than create an
// empty store, at a path that may be mistyped.
func MissingStore(store string) (string, bool) {
	path := store
	if path == "" {
		var err error
		if path, err = DefaultStore(); err != nil {
			return "", false
		}
	}
	if rest, ok := strings.CutPrefix(path, "sqlite:"); ok {
		path = rest
		if strings.HasPrefix(path, "///") {
			path = path[2:]
		}
	}
	if path == "" || strings.Contains(path, "://") || keywordDSN.MatchString(path) {
		return "", false
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return path, true
	}
	return "", false
}

// Handover is a [Binder] for a process that builds the run itself (its
// agent, tools and options, from its command line and the run's spec) and
// hands it over before the store asks.
type Handover struct {
	mu    sync.Mutex
	bound *runtime.Bound
}

// Set makes b the run the store gets.
func (h *Handover) Set(b *runtime.Bound) {
	h.mu.Lock()
	h.bound = b
	h.mu.Unlock()
}

// Bind is the store's [Binder]: the run set, when it is of the spec's
// agent.
func (h *Handover) Bind(_ context.Context, spec Spec) (*runtime.Bound, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.bound == nil || h.bound.Agent.Name != spec.Agent {
		return nil, fmt.Errorf("this command runs no run of the agent %q; resume it with gramc runs resume RUN_ID", spec.Agent)
	}
	return h.bound, nil
}
