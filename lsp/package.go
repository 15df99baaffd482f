// Documents in a package.
//
// The agent files of a directory form one package (see package project):
// an agent may list a tool another file declares, a type may name a record
// of another file, and a name two files declare is an error in both. When a
// document's directory holds other .gram files, the document is compiled
// with them, as `gramc check` compiles it: each other file is the open
// buffer when the client has it open, else the file on disk (read within
// the size limit of inputfile, a file that cannot be read left out). A
// document that does not join the package, or whose directory holds no
// other member file, is compiled alone, with the incremental compilation
// of analysis.go.
//
// A snapshot's package inputs are taken when it is made: the other files'
// paths (the directory's listing, read when a document of it is opened or
// saved and when the client reports a change of its files, with the open
// documents of the directory) and the open buffers among them. When a
// document opens, changes or closes, every other open document of its
// directory gets a new snapshot of the same version and text with the new
// inputs, and its diagnostics are published again. Other files are parsed
// again only when their text changed (an open buffer's version, a file's
// size or modification time, looked at once a second at most unless the
// client reports a change), and compiled again only when they changed or
// use a name of a file that did: each version is compiled from the package
// of the version before (see [project.Recompile]).

package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// pkgInputs are the other files of a document's directory at one moment.
// They are never modified.
type pkgInputs struct {
	dir string
	// paths are the other .gram files, sorted.
	paths []string
	// open are the open buffers among them, by path.
	open map[string]*diag.File
	// cache holds the parsed files.
	cache *sourceCache
}

// compile compiles the document of f with the other member files of its
// package, taking from prev (the package of an earlier version, or nil)
// the files the change leaves as they were (see [project.Recompile]). It
// returns the package and the other member files too. ok is false when the
// document is to be compiled alone: no inputs, the document does not join
// its package, or no other file does.
func (in *pkgInputs) compile(f *diag.File, doc *parser.Document, parsed diag.List, prev *project.Package) (prog *schema.Program, diags diag.List, pkg *project.Package, others []*project.File, ok bool) {
	if in == nil || !project.Joins(f.Path, doc) {
		return nil, nil, nil, nil, false
	}
	srcs := []project.Source{{File: f, Doc: doc, Diags: parsed}}
	members := 0
	for _, p := range in.paths {
		// A file that does not join is compiled alone, and nothing of it
		// matters to the document.
		src, joins, ok := in.cache.source(p, in.open[p])
		if !ok || !joins {
			continue
		}
		members++
		srcs = append(srcs, src)
	}
	if members == 0 {
		return nil, nil, nil, nil, false
	}
	// In path order, as gramc check compiles the directory: the first
	// declaration of a name is the one other files use.
	slices.SortStableFunc(srcs, func(a, b project.Source) int { return strings.Compare(a.File.Path, b.File.Path) })
	pkg = project.Recompile(prev, in.dir, srcs)
	var self *project.File
	for _, pf := range pkg.Files {
		switch {
		case pf.File == f:
			self = pf
		case pf.Member:
			others = append(others, pf)
		}
	}
	if self == nil || !self.Member {
		return nil, nil, nil, nil, false
	}
	return self.Program, self.Diags, pkg, others, true
}

// sourceCache holds the other files of packages, parsed: an open buffer's
// as long as its text is the same, a file's on disk as long as its size and
// modification time are. A file on disk is looked at again at most once in
// recheckAfter (edits come faster than that, and a package has many
// files), and at once when the client reports a change of its directory
// (see filesChanged, which forgets the directory's files).
type sourceCache struct {
	mu sync.Mutex
	m  map[string]cachedSource
}

// recheckAfter is how long a file on disk is taken as it was last seen.
const recheckAfter = time.Second

// cachedSource is a parsed file and what it was parsed from.
type cachedSource struct {
	buf  *diag.File // the open buffer, or nil
	size int64
	mod  time.Time
	// seen is when the file on disk was last looked at.
	seen time.Time
	src  project.Source
	// joins tells whether the file joins its package (see project.Joins).
	joins bool
}

// source returns the file at path parsed, and whether it joins its
// package: buf's text when it is open (buf not nil), else the file on
// disk; ok is false when it cannot be read. A file on disk that
// [project.NeverJoins] tells never joins (a data file, by its header) is
// neither read whole nor parsed: its Source is zero.
func (c *sourceCache) source(path string, buf *diag.File) (src project.Source, joins, ok bool) {
	c.mu.Lock()
	e, hit := c.m[path]
	c.mu.Unlock()
	now := time.Now()
	if hit && buf == nil && e.buf == nil && now.Sub(e.seen) < recheckAfter {
		return e.src, e.joins, true
	}
	var info os.FileInfo
	if buf == nil {
		var err error
		if info, err = os.Stat(path); err != nil {
			return project.Source{}, false, false
		}
	}
	switch {
	case hit && buf != nil && e.buf == buf:
		return e.src, e.joins, true
	case hit && buf == nil && e.buf == nil && e.size == info.Size() && e.mod.Equal(info.ModTime()):
		e.seen = now
		c.mu.Lock()
		c.m[path] = e
		c.mu.Unlock()
		return e.src, e.joins, true
	}
	var text []byte
	if buf != nil {
		text = buf.Text
	} else if project.NeverJoins(path) {
		// A data file, told by its header: not read whole, not parsed.
		e = cachedSource{size: info.Size(), mod: info.ModTime(), seen: now}
		c.mu.Lock()
		if c.m == nil {
			c.m = map[string]cachedSource{}
		}
		c.m[path] = e
		c.mu.Unlock()
		return e.src, false, true
	} else {
		b, err := inputfile.Read(path, 0)
		if err != nil {
			return project.Source{}, false, false
		}
		text = b
	}
	// A new file of the text: an open buffer's positions are its own
	// version's, never to be mixed with another parse.
	f := diag.NewFile(path, text)
	doc, parsed := parser.Parse(f)
	e = cachedSource{buf: buf, src: project.Source{File: f, Doc: doc, Diags: parsed}, joins: project.Joins(path, doc)}
	if info != nil {
		e.size, e.mod, e.seen = info.Size(), info.ModTime(), now
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]cachedSource{}
	}
	c.m[path] = e
	c.mu.Unlock()
	return e.src, e.joins, true
}

// forget drops the parsed files of the directory dir, or of every
// directory when dir is "".
func (c *sourceCache) forget(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for p := range c.m {
		if dir == "" || filepath.Dir(p) == dir {
			delete(c.m, p)
		}
	}
}

// listDir returns the .gram files of the directory of the document u, or
// nil when it is not a file or the directory cannot be read.
func listDir(u protocol.DocumentURI) (string, []string) {
	path := uriPath(u)
	if path == "" {
		return "", nil
	}
	dir := filepath.Dir(path)
	paths, err := project.Files(dir)
	if err != nil {
		return dir, nil
	}
	return dir, paths
}

// setListing records the listing of a directory; st.mu must be held. It
// reports whether it changed.
func (st *store) setListing(dir string, paths []string) bool {
	if dir == "" {
		return false
	}
	if st.dirs == nil {
		st.dirs = map[string][]string{}
	}
	old, ok := st.dirs[dir]
	st.dirs[dir] = paths
	return !ok || !slices.Equal(old, paths)
}

// inputs returns the package inputs of the document u, or nil when its
// directory holds no other .gram file; st.mu must be held.
func (st *store) inputs(u protocol.DocumentURI) *pkgInputs {
	path := uriPath(u)
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	var paths []string
	for _, p := range st.dirs[dir] {
		if p != path {
			paths = append(paths, p)
		}
	}
	var open map[string]*diag.File
	for ou, d := range st.docs {
		op := uriPath(ou)
		if ou == u || op == "" || op == path || filepath.Dir(op) != dir || !strings.HasSuffix(op, ".gram") {
			continue
		}
		if open == nil {
			open = map[string]*diag.File{}
		}
		open[op] = d.snap.File
		if !slices.Contains(paths, op) {
			paths = append(paths, op)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	slices.Sort(paths)
	return &pkgInputs{dir: dir, paths: paths, open: open, cache: &st.sources}
}

// renewDir gives every open document of the directory dir but except a new
// snapshot of the same version and text with the package inputs as they
// are now, and returns them, to be scheduled once st.mu is released;
// st.mu must be held.
func (st *store) renewDir(dir string, except protocol.DocumentURI) []*document {
	if dir == "" {
		return nil
	}
	var out []*document
	for u, d := range st.docs {
		p := uriPath(u)
		if u == except || p == "" || filepath.Dir(p) != dir {
			continue
		}
		st.renew(u, d)
		out = append(out, d)
	}
	return out
}

// renew gives the open document d (at u) a new snapshot of the same
// version and text with the package inputs as they are now, to be
// analysed again; st.mu must be held.
func (st *store) renew(u protocol.DocumentURI, d *document) {
	old := d.snap
	ns := &snapshot{URI: u, Version: old.Version, File: old.File, pkg: st.inputs(u)}
	base := old
	if !old.analyzed() {
		if b := old.base.Load(); b != nil {
			base = b
		}
	}
	ns.base.Store(base)
	old.superseded.Store(true)
	d.snap = ns
}

// scheduleAll asks for the diagnostics of the documents' newest snapshots.
func (st *store) scheduleAll(docs []*document) {
	for _, d := range docs {
		st.srv.schedule(d, d.currentSnapshot(st))
	}
}

// dirOf returns the directory of the document u, or "".
func dirOf(u protocol.DocumentURI) string {
	if p := uriPath(u); p != "" {
		return filepath.Dir(p)
	}
	return ""
}

// filesChanged reads the listing of the directories of changed files again
// and renews the snapshots of their open documents, and of the open
// bindings files that name a changed file (see bindingsfile.go).
func (st *store) filesChanged(paths []string) {
	st.namedFilesChanged(paths)
	dirs := map[string]bool{}
	for _, p := range paths {
		if strings.HasSuffix(p, ".gram") {
			dirs[filepath.Dir(p)] = true
		}
	}
	for dir := range dirs {
		list, err := project.Files(dir)
		if err != nil {
			list = nil
		}
		st.sources.forget(dir)
		st.mu.Lock()
		_, known := st.dirs[dir]
		var renewed []*document
		if known {
			st.setListing(dir, list)
			renewed = st.renewDir(dir, "")
			st.publishView()
		}
		st.mu.Unlock()
		st.scheduleAll(renewed)
	}
}
