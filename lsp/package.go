// Documents in a package.
//
// The agent files of a directory form one package (see package project):
// an agent may list a tool another file declares, a type may name a record
// of another file, and a name two files declare is an error in both. When a
// document's directory holds other .gram files, the document is checked
// with them ([project.Sources]), as `gramc check` checks it: each other
// file is the open buffer when the client has it open, else the file on
// disk (read within the size limit of inputfile, a file that cannot be
// read left out). A document that does not join the package, or whose
// directory holds no other member file, is compiled alone.
//
// A snapshot's package inputs are taken when it is made: the other files'
// paths (the directory's listing, read when a document of it is opened or
// saved and when the client reports a change of its files, with the open
// documents of the directory) and the open buffers among them. When a
// document opens, changes or closes, every other open document of its
// directory gets a new snapshot of the same version and text with the new
// inputs, and its diagnostics are published again. The server's
// [project.Cache] keeps the other files parsed: they are parsed again only
// when their text changed (an open buffer's version, a file's size or
// modification time, looked at once a second at most unless the client
// reports a change), and compiled again only when they changed or use a
// name of a file that did: each version is compiled from the package of
// the version before (see [project.Recompile]).

package lsp

import (
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/project"
)

// listDir returns the .gram files of the directory of the document u, or
// nil when it is not a file or the directory cannot be read.
func listDir(u protocol.DocumentURI) (string, []string) {
	dir := dirOf(u)
	if dir == "" {
		return "", nil
	}
	paths, _ := project.Files(dir) // none when it cannot be read
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

// inputs returns the rest of the package of the document u, or nil when
// its directory holds no other .gram file; st.mu must be held.
func (st *store) inputs(u protocol.DocumentURI) *project.Sources {
	path := uriPath(u)
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	paths := slices.DeleteFunc(slices.Clone(st.dirs[dir]), func(p string) bool { return p == path })
	open := map[string]*diag.File{}
	for ou, d := range st.docs {
		op := uriPath(ou)
		if ou == u || op == "" || op == path || filepath.Dir(op) != dir || !strings.HasSuffix(op, ".gram") {
			continue
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
	return &project.Sources{Dir: dir, Paths: paths, Open: open, Cache: &st.sources}
}

// renewDir gives every open document of the directory dir but except a new
// snapshot of the same version and text with the package inputs as they
// are now, and returns them, to be scheduled once st.mu is released (and
// their views refreshed, see update); st.mu must be held.
func (st *store) renewDir(dir string, except protocol.DocumentURI) []*document {
	if dir == "" {
		return nil
	}
	docs := st.renewWhere(func(u protocol.DocumentURI, _ *document) bool { return u != except && dirOf(u) == dir })
	st.renewed = st.renewed || len(docs) > 0
	return docs
}

// renewWhere gives each open document match selects a new snapshot of
// the same version and text with the package inputs as they are now, to
// be analysed again, and returns them; st.mu must be held.
func (st *store) renewWhere(match func(protocol.DocumentURI, *document) bool) []*document {
	var out []*document
	for u, d := range st.docs {
		if !match(u, d) {
			continue
		}
		old := d.snap
		d.snap = &snapshot{URI: u, Version: old.Version, File: old.File, pkg: st.inputs(u)}
		d.snap.base.Store(old.analysedBase())
		old.superseded.Store(true)
		out = append(out, d)
	}
	return out
}

// dirOf returns the directory of the document u, or "".
func dirOf(u protocol.DocumentURI) string {
	if p := uriPath(u); p != "" {
		return filepath.Dir(p)
	}
	return ""
}

// filesChanged reads the listing of the directories of changed files again
// and renews the snapshots of their open documents, in one update, and of
// the open bindings files that name a changed file (see bindingsfile.go).
func (st *store) filesChanged(paths []string) {
	st.namedFilesChanged(paths)
	lists := map[string][]string{}
	for _, p := range paths {
		dir := filepath.Dir(p)
		if _, listed := lists[dir]; listed || !strings.HasSuffix(p, ".gram") {
			continue
		}
		lists[dir], _ = project.Files(dir) // none when it cannot be read
		st.sources.Forget(dir)
	}
	st.update(func() []*document {
		var docs []*document
		for dir, list := range lists {
			if _, known := st.dirs[dir]; known {
				st.setListing(dir, list)
				docs = append(docs, st.renewDir(dir, "")...)
			}
		}
		return docs
	})
}
