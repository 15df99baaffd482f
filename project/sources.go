// The other files of a package, read and parsed, and kept between checks.

package project

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/parser"
)

// Sources are the other files of a text's package, for [Check]: each is
// the open buffer when there is one, else the file on disk (of at most
// [inputfile.DefaultLimit] bytes).
type Sources struct {
	// Dir is the package's directory.
	Dir string
	// Paths are the other .gram files of the package's directory (those
	// of Open among them).
	Paths []string
	// Open are the texts to take instead of the files on disk, by path:
	// an editor's open buffers.
	Open map[string]*diag.File
	// Cache keeps the files parsed from one check to the next; nil: none.
	Cache *Cache
}

// inPackage compiles the parsed text of f with the other member files of
// its package, taking from the package of r.Prev what the change leaves as
// it was (see [Recompile]). It returns nil when the text is to be compiled
// alone: no package given, the text does not join it, or no other file
// does.
func (r *Request) inPackage(f *diag.File, doc *parser.Document, parsed diag.List) *Text {
	in := r.Package
	if in == nil || !Joins(f.Path, doc) {
		return nil
	}
	srcs := []Source{{File: f, Doc: doc, Diags: parsed}}
	self, _ := os.Stat(f.Path)
	for _, s := range in.Cache.read(in.Paths, in.Open, nil, 0) {
		// A file that does not join is compiled alone, and nothing of it
		// matters to the text; nor does the text's own file on disk
		// under another name (a link to it).
		if s.ok && s.joins && (self == nil || s.info == nil || !os.SameFile(self, s.info)) {
			srcs = append(srcs, s.src)
		}
	}
	if len(srcs) == 1 {
		return nil
	}
	// In path order, as a directory is compiled: the first declaration of
	// a name is the one other files use.
	slices.SortStableFunc(srcs, func(a, b Source) int { return strings.Compare(a.File.Path, b.File.Path) })
	var prev *Package
	if r.Prev != nil {
		prev = r.Prev.Package
	}
	pkg := Recompile(prev, in.Dir, srcs)
	t := &Text{Package: pkg}
	for _, pf := range pkg.Files {
		switch {
		case pf.File == f:
			t.File, t.Doc, t.Program, t.Diags = pf.File, pf.Doc, pf.Program, pf.Diags
			if !pf.Member {
				return nil
			}
		case pf.Member:
			t.Others = append(t.Others, pf)
		}
	}
	if t.File == nil {
		return nil
	}
	return t
}

// Cache holds the files of packages, parsed: an open buffer's as long as
// its text is the same (the same [diag.File]), a file's on disk as long
// as its size and modification time are. A file on disk is looked at
// again at most once in [RecheckAfter] (edits come faster than that, and
// a package has many files), and at once after [Cache.Forget]. The zero
// Cache is empty and ready; it is safe for concurrent use.
type Cache struct {
	mu sync.Mutex
	m  map[string]cached
}

// RecheckAfter is how long a [Cache] takes a file on disk as it was last
// seen.
const RecheckAfter = time.Second

// cached is a parsed file and what it was parsed from.
type cached struct {
	buf  *diag.File // the open buffer, or nil
	size int64
	mod  time.Time
	// seen is when the file on disk was last looked at.
	seen time.Time
	src  Source
	// joins tells whether the file joins its package (see Joins).
	joins bool
	// info is the file on disk as last looked at; nil for a buffer.
	info os.FileInfo
}

// Forget drops the files of the directory dir, or of every directory when
// dir is "": they are read again when next asked for.
func (c *Cache) Forget(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for p := range c.m {
		if dir == "" || filepath.Dir(p) == dir {
			delete(c.m, p)
		}
	}
}

// lookup returns the file at path as it was kept, when it may be taken:
// buf (the open buffer, or nil) is the same, or the file on disk was
// looked at less than RecheckAfter ago or has the size and time of info
// (nil: not known yet).
func (c *Cache) lookup(path string, buf *diag.File, info os.FileInfo, now time.Time) (cached, bool) {
	if c == nil {
		return cached{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, hit := c.m[path]
	switch {
	case !hit:
		return e, false
	case buf != nil:
		return e, e.buf == buf
	case e.buf != nil:
		return e, false
	case info == nil:
		return e, now.Sub(e.seen) < RecheckAfter
	case e.size == info.Size() && e.mod.Equal(info.ModTime()):
		e.seen = now
		c.m[path] = e
		return e, true
	}
	return e, false
}

// store keeps e as the file at path.
func (c *Cache) store(path string, e cached) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	put(&c.m, path, e)
}

// source returns the file kept as read.
func (e cached) source() source { return source{src: e.src, joins: e.joins, ok: true, info: e.info} }

// source is a file of a package as read: ok is false when it could not be
// read (err says why), joins tells whether it joins its package.
type source struct {
	src       Source
	joins, ok bool
	err       error
	info      os.FileInfo // the file on disk, when looked at
}

// source returns the file at path parsed: buf's text when it is open (buf
// not nil), else the file on disk, of at most limit bytes. A file on disk
// for which need is false and that [NeverJoins] tells never joins (a data
// file, by its header) is neither read whole nor parsed: its Source is
// zero.
func (c *Cache) source(path string, buf *diag.File, need bool, limit int64) source {
	now := time.Now()
	if e, ok := c.lookup(path, buf, nil, now); ok {
		return e.source()
	}
	var info os.FileInfo
	text := []byte(nil)
	if buf != nil {
		text = buf.Bytes()
	} else {
		if c != nil {
			// For the cache: a file that cannot be looked at is not read
			// either, and reading it says why.
			info, _ = os.Stat(path)
			if e, ok := c.lookup(path, nil, info, now); info != nil && ok {
				return e.source()
			}
		}
		if !need && NeverJoins(path) {
			// A data file, told by its header: not read whole, not parsed.
			if info != nil {
				c.store(path, cached{size: info.Size(), mod: info.ModTime(), seen: now})
			}
			return source{ok: true}
		}
		var err error
		if text, err = inputfile.Read(path, limit); err != nil {
			return source{err: err}
		}
	}
	// A new file of the text: an open buffer's positions are its own
	// version's, never to be mixed with another parse.
	f := diag.NewFile(path, text)
	doc, parsed := parseWith(f, parser.Parse)
	e := cached{buf: buf, src: Source{File: f, Doc: doc, Diags: parsed}, joins: Joins(path, doc)}
	if info != nil {
		e.size, e.mod, e.seen, e.info = info.Size(), info.ModTime(), now, info
	}
	c.store(path, e)
	return e.source()
}
