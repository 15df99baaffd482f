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
// reads the bindings from disk when it runs (see testbindings.go).

package lsp

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/project"
)

// mcpServersLabel is the label of the binding that names an mcp.json file.
const mcpServersLabel = "MCPServers"

// bindingsFiles returns the absolute paths of the files a bindings file
// names, relative ones taken from its directory.
func bindingsFiles(f *diag.File, doc *parser.Document) []string {
	if !project.IsBindings(doc) {
		return nil
	}
	dir := filepath.Dir(f.Path)
	var out []string
	for _, p := range doc.Lowered() {
		if !p.Subject.HasLabel(mcpServersLabel) {
			continue
		}
		pr := p.Subject.Prop("file")
		if pr == nil || pr.Value == nil || pr.Value.Kind() != grammar.ScalarValue {
			continue
		}
		path := pr.Value.Tok.Text()
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		out = append(out, filepath.Clean(path))
	}
	return out
}

// namedFilesChanged forgets the changed files' texts and renews the
// snapshots of the open bindings files that name one of them.
func (st *store) namedFilesChanged(paths []string) {
	changed := map[string]bool{}
	for _, p := range paths {
		namedFiles.forget(p)
		changed[filepath.Clean(p)] = true
	}
	st.mu.Lock()
	var renewed []*document
	for u, d := range st.docs {
		if names(d.snap, changed) {
			st.renew(u, d)
			renewed = append(renewed, d)
		}
	}
	if len(renewed) > 0 {
		st.publishView()
	}
	st.mu.Unlock()
	st.scheduleAll(renewed)
}

// names reports whether the text of snap is a bindings file that names a
// file of changed: by the newest analysis of the document, or, before
// there is one, when its text mentions the MCPServers binding at all.
func names(snap *snapshot, changed map[string]bool) bool {
	if !bytes.Contains(snap.File.Bytes(), []byte(mcpServersLabel)) {
		return false
	}
	an := snap.ready()
	if an == nil {
		if b := snap.base.Load(); b != nil {
			an = b.ready()
		}
	}
	if an == nil || an.File.Bytes() == nil || !bytes.Equal(an.File.Bytes(), snap.File.Bytes()) {
		return true
	}
	for _, p := range bindingsFiles(an.File, an.Doc) {
		if changed[p] {
			return true
		}
	}
	return false
}

// namedFiles holds the texts of the files bindings files name, for every
// server of the process; a file is read again when its size or
// modification time changes, or when a client reports it changed.
var namedFiles namedFileCache

// namedFileReadHook, when set (by tests), is called with the path of
// every file namedFiles reads from disk.
var namedFileReadHook func(path string)

// namedFileCache holds the texts of files by path.
type namedFileCache struct {
	mu sync.Mutex
	m  map[string]namedFile
}

// namedFile is the text of a file and the size and modification time it
// was read at.
type namedFile struct {
	size int64
	mod  time.Time
	data []byte
}

// read returns the text of the file at path, read within the limit of
// project.ReadNamedFile, from the cache when the file's size and
// modification time are those it was read at.
func (c *namedFileCache) read(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		// Read it to report why it cannot be, as gramc check does.
		c.forget(path)
		return c.readDisk(path)
	}
	c.mu.Lock()
	e, ok := c.m[path]
	c.mu.Unlock()
	if ok && e.size == info.Size() && e.mod.Equal(info.ModTime()) {
		return e.data, nil
	}
	data, err := c.readDisk(path)
	if err != nil {
		c.forget(path)
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]namedFile{}
	}
	c.m[path] = namedFile{size: info.Size(), mod: info.ModTime(), data: data}
	c.mu.Unlock()
	return data, nil
}

// readDisk reads the file at path from disk.
func (c *namedFileCache) readDisk(path string) ([]byte, error) {
	if namedFileReadHook != nil {
		namedFileReadHook(path)
	}
	return project.ReadNamedFile(path)
}

// forget drops the text of the file at path.
func (c *namedFileCache) forget(path string) {
	c.mu.Lock()
	delete(c.m, filepath.Clean(path))
	c.mu.Unlock()
}

// namedWatches are the files named by bindings files that the client was
// asked to watch.
type namedWatches struct {
	mu sync.Mutex
	// dynamic is set when the client registers watchers dynamically.
	dynamic bool
	asked   map[string]bool
}

// setDynamic records whether the client registers watchers dynamically.
func (w *namedWatches) setDynamic(on bool) {
	w.mu.Lock()
	w.dynamic = on
	w.mu.Unlock()
}

// fresh returns the paths the client has not been asked to watch yet,
// and records them as asked; none when the client does not register
// watchers dynamically.
func (w *namedWatches) fresh(paths []string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.dynamic {
		return nil
	}
	var out []string
	for _, p := range paths {
		if !w.asked[p] {
			if w.asked == nil {
				w.asked = map[string]bool{}
			}
			w.asked[p] = true
			out = append(out, p)
		}
	}
	return out
}

// watchNamedFiles asks the client to watch the files the analysed
// document names, when it is a bindings file, those not asked for
// before.
func (s *server) watchNamedFiles(an *analysis) {
	if an.Doc == nil || !project.IsBindings(an.Doc) {
		return
	}
	paths := s.watches.fresh(bindingsFiles(an.File, an.Doc))
	if len(paths) == 0 {
		return
	}
	var regs []protocol.Registration
	for _, p := range paths {
		regs = append(regs, protocol.Registration{
			ID:     "gram-named-file:" + p,
			Method: protocol.MethodWorkspaceDidChangeWatchedFiles,
			RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{
				Watchers: []protocol.FileSystemWatcher{{GlobPattern: filepath.ToSlash(p)}},
			},
		})
	}
	go func() {
		if _, err := s.conn.Call(context.Background(), protocol.MethodClientRegisterCapability, protocol.RegistrationParams{Registrations: regs}, nil); err != nil {
			s.log.Warn("the client did not register the watchers", "files", paths, "error", err)
		}
	}()
}
