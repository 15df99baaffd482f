package main

// The run store of gramc run and gramc runs: where durable runs are kept
// (--store, or a file under the user's state directory), and what a run
// needs to be built again by another process: the settings of the
// command that started it.

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/gramlang/gram/durable"
)

// storeUsage is the usage of --store.
const storeUsage = "keep durable runs in `STORE`: a file path, sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE (default: $XDG_STATE_HOME/gram/runs.db, else ~/.local/state/gram/runs.db)"

// addStoreFlag registers --store on fs, with usage, into p (a new string
// when p is nil). The secrets of the value given are masked in what e
// writes as the flag is read, before any error can repeat them.
func addStoreFlag(e *env, fs *flag.FlagSet, p *string, usage string) *string {
	if p == nil {
		p = new(string)
	}
	fs.Func("store", usage, func(v string) error {
		e.mask(durable.StoreSecrets(v)...)
		*p = v
		return nil
	})
	return p
}

// errNoStore is in the error of a command whose store file does not
// exist (see openStore).
var errNoStore = errors.New("no store")

// openStore opens the store that flag names (the default store when it
// is empty) for cmd, with the Handover a command that runs a run hands it
// to (see [durable.Handover]). The error is a usage error of cmd; with
// existing, one that wraps errNoStore when the store is a file that does
// not exist, not made.
func openStore(ctx context.Context, cmd, flagValue string, existing bool, logger *slog.Logger) (*durable.Store, *durable.Handover, error) {
	if path, missing := durable.MissingStore(flagValue); existing && missing {
		return nil, nil, fmt.Errorf("%w%.0w", usageError(cmd, "there is no store %s: no run was kept there; --store names the store that gramc run or gramc serve used", path), errNoStore)
	}
	url := flagValue
	if url == "" {
		var err error
		if url, err = durable.DefaultStore(); err != nil {
			return nil, nil, usageError(cmd, "%v", err)
		}
	}
	rb := &durable.Handover{}
	st, err := durable.Open(ctx, url, durable.Options{Bind: rb.Bind, Logger: logger, ExecutorID: runExecutor()})
	if err != nil {
		return nil, nil, usageError(cmd, "--store: %v", err)
	}
	return st, rb, nil
}

// runExecutor is the executor id of this process in a store: its host and
// process id, by which gramc runs resume knows a run whose process ended,
// and a random part, so that no later process recovers its runs.
func runExecutor() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("gramc@%s/%d/%s", host, os.Getpid(), rand.Text())
}

// processEnded reports whether executor is that of a gramc process of
// this host (see runExecutor) that has ended.
func processEnded(executor string) bool {
	host, _ := os.Hostname()
	rest, ok := strings.CutPrefix(executor, "gramc@"+host+"/")
	pid, err := strconv.Atoi(strings.SplitN(rest, "/", 2)[0])
	if !ok || err != nil || pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	return err != nil || errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}

// The settings of a run kept in its spec: the flags whose values a
// resumed run must have to replay the same way, unless the command that
// resumes it gives them again.
var storedFlags = []string{"max-iterations", "max-depth", "max-model-calls", "result-limit",
	"output-retries", "no-summary", "tool-timeout"}

// runSettings returns the settings of a run that path and the flags of
// fs given on the command line give.
func runSettings(fs *flag.FlagSet, path string) map[string]string {
	out := durable.PathSettings(path)
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(storedFlags, f.Name) {
			out[f.Name] = f.Value.String()
		}
	})
	return out
}

// applySettings sets the flags of fs that the command line did not give
// to the values the run's settings keep.
func applySettings(fs *flag.FlagSet, settings map[string]string) error {
	given := givenFlags(fs)
	for _, name := range storedFlags {
		v, ok := settings[name]
		if !ok || given[name] || fs.Lookup(name) == nil {
			continue
		}
		if err := fs.Set(name, v); err != nil {
			return fmt.Errorf("the run's setting %s=%s: %v", name, strconv.Quote(v), err)
		}
	}
	return nil
}
