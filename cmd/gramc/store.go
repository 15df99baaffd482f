package main

// The run store of gramc run and gramc runs: where durable runs are kept
// (--store, or a file under the user's state directory), and what a run
// needs to be built again by another process: its package's sources and
// the settings of the command that started it.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/durable"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// storeUsage is the usage of --store.
const storeUsage = "keep durable runs in `STORE`: a file path, sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE (default: $XDG_STATE_HOME/gram/runs.db, else ~/.local/state/gram/runs.db)"

// addStoreFlag registers --store on fs.
func addStoreFlag(fs *flag.FlagSet) *string {
	return fs.String("store", "", storeUsage)
}

// defaultStore is the store used without --store: runs.db in gram's
// directory of the user's state directory ($XDG_STATE_HOME, else
// ~/.local/state).
func defaultStore() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "gram", "runs.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", errors.New("there is no default store: neither XDG_STATE_HOME nor HOME is set; give one with --store PATH")
	}
	return filepath.Join(home, ".local", "state", "gram", "runs.db"), nil
}

// maskStore masks the credentials of a store's URL in what the command
// writes from here on.
func maskStore(e *env, url string) {
	r := replay.NewRedactor(durable.StoreSecrets(url)...)
	e.stdout, e.stderr = r.Writer(e.stdout), r.Writer(e.stderr)
}

// runBinder gives the store the run this process has built: gramc run
// and gramc runs resume build the agent, its tools and the options of
// each turn themselves (from the command line and the run's spec) and
// hand them over here before the store asks.
type runBinder struct {
	mu    sync.Mutex
	bound *durable.Bound
}

// set makes b the run the store gets.
func (rb *runBinder) set(b *durable.Bound) {
	rb.mu.Lock()
	rb.bound = b
	rb.mu.Unlock()
}

// bind is the store's [durable.Binder].
func (rb *runBinder) bind(_ context.Context, spec durable.Spec) (*durable.Bound, error) {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	if rb.bound == nil || rb.bound.Agent.Name != spec.Agent {
		return nil, fmt.Errorf("this command runs no run of the agent %q; resume it with gramc runs resume RUN_ID", spec.Agent)
	}
	return rb.bound, nil
}

// missingStore returns the path of the SQLite file that the store flag
// names (the default store when it is empty), when that file does not
// exist: a command that only reads or changes runs says so rather than
// create an empty store, at a path that may be mistyped.
func missingStore(flagValue string) (string, bool) {
	path := flagValue
	if path == "" {
		var err error
		if path, err = defaultStore(); err != nil {
			return "", false
		}
	}
	if rest, ok := strings.CutPrefix(path, "sqlite:"); ok {
		path = rest
		if strings.HasPrefix(path, "///") {
			path = path[2:]
		}
	}
	if path == "" || strings.Contains(path, "://") {
		return "", false
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return path, true
	}
	return "", false
}

// errNoStore is in the error of a command whose store file does not
// exist (see [noStoreError]).
var errNoStore = errors.New("no store")

// noStoreError is the error of cmd about a store file that does not
// exist: a usage error that wraps errNoStore.
func noStoreError(cmd, path string) error {
	return fmt.Errorf("%w%.0w", usageError(cmd, "there is no store %s: no run was kept there; --store names the store that gramc run or gramc serve used", path), errNoStore)
}

// openStore opens the store that flag names (the default store when it
// is empty) for cmd, with bind as its binder (nil for a command that runs
// nothing). The error is a usage error of cmd.
func openStore(ctx context.Context, cmd, flagValue string, bind durable.Binder, logger *slog.Logger) (*durable.Store, string, error) {
	url := flagValue
	if url == "" {
		var err error
		if url, err = defaultStore(); err != nil {
			return nil, "", usageError(cmd, "%v", err)
		}
	}
	if bind == nil {
		bind = func(context.Context, durable.Spec) (*durable.Bound, error) {
			return nil, fmt.Errorf("%s runs no runs; resume a run with gramc runs resume RUN_ID", cmd)
		}
	}
	st, err := durable.Open(ctx, url, durable.Options{Bind: bind, Logger: logger})
	if err != nil {
		return nil, "", usageError(cmd, "--store: %v", err)
	}
	return st, url, nil
}

// The settings of a run kept in its spec: the flags whose values a
// resumed run must have to replay the same way, unless the command that
// resumes it gives them again.
var storedFlags = []string{"max-iterations", "max-depth", "max-model-calls", "result-limit",
	"output-retries", "no-summary", "tool-timeout"}

// settingPath is the setting that holds the agent file or directory run,
// as an absolute path ("-" for standard input); settingDir is set when it
// is a directory.
const (
	settingPath = "path"
	settingDir  = "dir"
)

// runSettings returns the settings of a run that path and the flags of
// fs given on the command line give.
func runSettings(fs *flag.FlagSet, path string) map[string]string {
	out := map[string]string{settingPath: path}
	if path != "-" {
		if abs, err := filepath.Abs(path); err == nil {
			out[settingPath] = abs
		}
		if info, err := os.Stat(path); err == nil && info.IsDir() {
			out[settingDir] = "true"
		}
	}
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
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
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

// runSources returns the files of the package the program run comes from:
// the file given and the other member files of its directory (tests left
// out), or the member files of a directory, or standard input's text.
func runSources(e *env, path string, prog *schema.Program) ([]durable.Source, error) {
	if path == "-" {
		return []durable.Source{{Path: prog.File.Path, Text: string(prog.File.Bytes())}}, nil
	}
	dir, file := path, ""
	if info, err := os.Stat(path); err == nil && !info.IsDir() {
		dir, file = filepath.Dir(path), filepath.Clean(path)
	}
	var files []string
	if file != "" {
		files = []string{file}
	}
	l, err := project.Load(dir, project.LoadOptions{Files: files, Limit: e.maxFileSize})
	if err != nil {
		return nil, err
	}
	var out []durable.Source
	for _, f := range l.Files {
		if f.Member && !f.Test || file != "" && filepath.Clean(f.File.Path) == file {
			abs, err := filepath.Abs(f.File.Path)
			if err != nil {
				return nil, err
			}
			out = append(out, durable.Source{Path: abs, Text: string(f.File.Bytes())})
		}
	}
	return out, nil
}

// specProgram compiles the sources of a run's spec as the run compiled
// them: the program whose agents it runs, and the program in which they
// find the agents they use. Nothing is read from disk.
func specProgram(spec durable.Spec) (*schema.Program, *schema.Program, error) {
	if len(spec.Sources) == 0 {
		return nil, nil, errors.New("the run keeps no sources")
	}
	path := spec.Settings[settingPath]
	if path == "-" || len(spec.Sources) == 1 && path == "" {
		src := spec.Sources[0]
		t := project.CheckText(diag.NewFile(src.Path, []byte(src.Text)))
		if t.Diags.HasErrors() {
			return nil, nil, fmt.Errorf("the run's source %s has errors; see gramc check", src.Path)
		}
		return t.Program, t.Program, nil
	}
	dir := path
	if spec.Settings[settingDir] == "" {
		dir = filepath.Dir(path)
	}
	srcs := make([]project.Source, len(spec.Sources))
	for i, s := range spec.Sources {
		f := diag.NewFile(s.Path, []byte(s.Text))
		doc, diags := project.Parse(f)
		srcs[i] = project.Source{File: f, Doc: doc, Diags: diags}
	}
	pkg := project.Compile(dir, srcs)
	if pkg.HasErrors() {
		return nil, nil, fmt.Errorf("the run's package %s has errors; see gramc check", dir)
	}
	if spec.Settings[settingDir] != "" {
		prog := pkg.Program()
		return prog, prog, nil
	}
	self := pkg.Lookup(path)
	if self == nil {
		return nil, nil, fmt.Errorf("the run's sources do not hold its file %s", path)
	}
	return self.Program, pkg.ProgramOf(self), nil
}
