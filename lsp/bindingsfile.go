// Bindings files in the editor.
//
// A bindings file (its header {kind: "bindings"}, see package project) is
// checked by the rules of bindings, as `gramc check` checks it; it joins
// no package. The mcp.json file it names with (:MCPServers {file: PATH})
// is read through namedFiles, which keeps a file's text as long as its
// size and modification time are the same: an edit of the bindings file
// does not read it again. When the client reports that a file an open
// bindings file names changed on disk (workspace/didChangeWatchedFiles),
// the bindings file is checked again and its diagnostics published again.
// The VS Code extension watches the files named mcp.json; a client that
// registers watchers dynamically is asked to watch each file an open
// bindings file names, once, when the bindings file is checked. A "Run test"
// reads the bindings from disk when it runs (see testRunner).

package lsp

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/project"
)

// mcpServersLabel is the label of the binding that names an mcp.json file.
const mcpServersLabel = "MCPServers"

// namedFilesChanged forgets the changed files' texts and renews the
// snapshots of the open bindings files that name one of them.
func (st *store) namedFilesChanged(paths []string) {
	changed := map[string]bool{}
	for _, p := range paths {
		namedFiles.forget(p)
		changed[filepath.Clean(p)] = true
	}
	st.update(func() []*document {
		return st.renewWhere(func(_ protocol.DocumentURI, d *document) bool { return names(d.snap, changed) })
	})
}

// names reports whether the text of snap is a bindings file that names a
// file of changed: by the newest analysis of the document, or, before
// there is one, when its text mentions the MCPServers binding at all.
func names(snap *snapshot, changed map[string]bool) bool {
	if !bytes.Contains(snap.File.Bytes(), []byte(mcpServersLabel)) {
		return false
	}
	an := snap.an.Load()
	if an == nil {
		if b := snap.base.Load(); b != nil {
			an = b.an.Load()
		}
	}
	return an == nil || !bytes.Equal(an.File.Bytes(), snap.File.Bytes()) ||
		slices.ContainsFunc(an.named, func(p string) bool { return changed[p] })
}

// namedFiles holds the texts of the files bindings files name, for every
// server of the process; a file is read again when its size or
// modification time changes, or when a client reports it changed.
var namedFiles statCache[[]byte]

// readNamedFile reads a file a bindings file names from disk (a variable
// for tests).
var readNamedFile = project.ReadNamedFile

// readNamed reads the file at path, which a bindings file names, within
// the limit of project.ReadNamedFile, from the cache when it has not
// changed.
func readNamed(path string) ([]byte, error) { return namedFiles.get(path, readNamedFile) }

// statCache keeps what was made of files, by path, as of their size and
// modification time.
type statCache[V any] struct {
	m sync.Map // of statEntry[V]
}

// statEntry is what was made of a file, and the size and modification
// time of the file it was made of.
type statEntry[V any] struct {
	size int64
	mod  time.Time
	v    V
}

// get returns what make makes of the file at path, from the cache when
// the file's size and modification time are those it was made at. What
// fails is not kept, and a path that is no regular file is made each time
// (make says why it cannot be read, as gramc check does).
func (c *statCache[V]) get(path string, make func(path string) (V, error)) (V, error) {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		c.forget(path)
		return make(path)
	}
	if e, ok := c.m.Load(path); ok {
		if e := e.(statEntry[V]); e.size == info.Size() && e.mod.Equal(info.ModTime()) {
			return e.v, nil
		}
	}
	v, err := make(path)
	if err != nil {
		c.forget(path)
		return v, err
	}
	c.m.Store(path, statEntry[V]{size: info.Size(), mod: info.ModTime(), v: v})
	return v, nil
}

// forget drops what was made of the file at path.
func (c *statCache[V]) forget(path string) {
	c.m.Delete(filepath.Clean(path))
}

// namedWatches are the files the client was asked to watch: the .gram
// files, and the files named by bindings files.
type namedWatches struct {
	// dynamic is set when the client registers watchers dynamically.
	dynamic atomic.Bool
	asked   sync.Map // of glob patterns
}

// watchNamedFiles asks the client to watch the files the analysed
// document names, when it is a bindings file (see watch).
func (s *server) watchNamedFiles(an *analysis) {
	globs := make([]string, len(an.named))
	for i, p := range an.named {
		globs[i] = filepath.ToSlash(p)
	}
	s.watch(globs)
}

// watch asks the client to watch the files of the glob patterns not asked
// for before, when it registers watchers dynamically.
func (s *server) watch(globs []string) {
	if !s.watches.dynamic.Load() {
		return
	}
	var asked []string
	var regs []protocol.Registration
	for _, g := range globs {
		if _, dup := s.watches.asked.LoadOrStore(g, true); dup {
			continue
		}
		asked = append(asked, g)
		regs = append(regs, protocol.Registration{
			ID:     "gram-watch:" + g,
			Method: protocol.MethodWorkspaceDidChangeWatchedFiles,
			RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{
				Watchers: []protocol.FileSystemWatcher{{GlobPattern: g}},
			},
		})
	}
	if len(regs) > 0 {
		s.call(protocol.MethodClientRegisterCapability, protocol.RegistrationParams{Registrations: regs}, "files", asked)
	}
}
