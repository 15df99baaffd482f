// The document store and text synchronization.
//
// The store maps each open document to its latest snapshot. Its current state
// is also kept as an immutable view (a map from URI to snapshot, replaced on
// every change), which a request takes when it arrives: the request then
// answers about the text the client had when it asked, even if edits arrive
// while it runs.
//
// Changes may be full texts or ranges (incremental sync); a range is in
// UTF-16 positions of the text as it was before that change.

package lsp

import (
	"context"
	"sync"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/project"
)

// view is the set of open documents at one moment. It is never modified.
type view map[protocol.DocumentURI]*snapshot

// viewKey is the context key of the view a request takes (see server.handle).
type viewKey struct{}

// store holds the open documents.
type store struct {
	srv *server
	mu  sync.Mutex
	// docs are the open documents.
	docs map[protocol.DocumentURI]*document
	cur  atomic.Pointer[view]
	// dirs are the listings of the directories of open documents, and
	// sources the other files of their packages, parsed (see package.go).
	dirs    map[string][]string
	sources project.Cache
	// renewed is set when a change gave other documents of a package new
	// snapshots (see renewDir): their views are refreshed once the change
	// is made.
	renewed bool
}

// document is an open document: its latest snapshot and its diagnostics
// worker.
type document struct {
	uri  protocol.DocumentURI
	snap *snapshot // guarded by store.mu

	mu      sync.Mutex
	pending *snapshot // the newest snapshot waiting for diagnostics
	running bool      // a worker is running
	closed  bool
	// pubMu orders publications, so that clearing on close comes last.
	pubMu sync.Mutex
}

// current returns the current view.
func (st *store) current() view { return *st.cur.Load() }

// snapshot returns the snapshot of a document as the request in ctx sees it.
func (s *server) snapshot(ctx context.Context, u protocol.DocumentURI) (*snapshot, error) {
	v, ok := ctx.Value(viewKey{}).(view)
	if !ok {
		v = s.docs.current()
	}
	if snap := v[u]; snap != nil {
		return snap, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "document not open: %s", u)
}

// update runs f with st.mu held and publishes the view it leaves; then it
// asks the client to refresh its views when f renewed documents of a
// package, and asks for the diagnostics of the documents f returns, at
// their newest snapshots.
func (st *store) update(f func() []*document) {
	st.mu.Lock()
	docs := f()
	renewed := st.renewed
	st.renewed = false
	v := make(view, len(st.docs))
	for u, d := range st.docs {
		v[u] = d.snap
	}
	st.cur.Store(&v)
	st.mu.Unlock()
	if renewed {
		st.srv.refresh()
	}
	for _, d := range docs {
		st.mu.Lock()
		snap := d.snap
		st.mu.Unlock()
		st.srv.schedule(d, snap)
	}
}

// didOpen records a newly opened document and schedules its diagnostics.
func (st *store) didOpen(_ context.Context, p *protocol.DidOpenTextDocumentParams) error {
	u := p.TextDocument.URI
	dir, list := listDir(u)
	st.update(func() []*document {
		if old := st.docs[u]; old != nil {
			old.close()
		}
		st.setListing(dir, list)
		d := &document{uri: u, snap: newSnapshot(u, p.TextDocument.Version, []byte(p.TextDocument.Text))}
		st.docs[u] = d
		d.snap.pkg = st.inputs(u)
		return append([]*document{d}, st.renewDir(dir, u)...)
	})
	return nil
}

// didChange applies a document's changes (see changeEvent).
func (st *store) didChange(_ context.Context, p *didChangeParams) error {
	u, version := p.TextDocument.URI, p.TextDocument.Version
	st.update(func() []*document {
		d := st.docs[u]
		if d == nil {
			st.srv.log.Warn("didChange of a document that is not open", "uri", u)
			return nil
		}
		old := d.snap
		file, edit := applyChanges(old.File, p.ContentChanges)
		// The new text shares its chunks and line index with the old one's
		// but where the changes are.
		d.snap = &snapshot{URI: u, Version: version, File: file, editFrom: old.File, edit: edit}
		old.superseded.Store(true)
		if edit.NewLen == 0 && edit.Span.Len() == 0 {
			d.snap.File, d.snap.same = old.File, old
		} else {
			d.snap.base.Store(old.analysedBase())
		}
		d.snap.pkg = st.inputs(u)
		return append([]*document{d}, st.renewDir(dirOf(u), u)...)
	})
	return nil
}

// didSave re-publishes a document's diagnostics, and those of the other
// open documents of its directory when the save added a file to it.
func (st *store) didSave(_ context.Context, p *protocol.DidSaveTextDocumentParams) error {
	u := p.TextDocument.URI
	dir, list := listDir(u)
	st.update(func() []*document {
		switch d := st.docs[u]; {
		case d == nil:
			return nil
		case dir != "" && st.setListing(dir, list):
			return st.renewDir(dir, "")
		default:
			return []*document{d}
		}
	})
	return nil
}

// didClose forgets a document and clears its diagnostics.
func (st *store) didClose(_ context.Context, p *protocol.DidCloseTextDocumentParams) error {
	u := p.TextDocument.URI
	var d *document
	st.update(func() []*document {
		d = st.docs[u]
		delete(st.docs, u)
		if d == nil {
			return nil
		}
		return st.renewDir(dirOf(u), u)
	})
	if d == nil {
		return nil
	}
	d.close()
	d.pubMu.Lock()
	st.srv.notify("textDocument/publishDiagnostics", publishParams{URI: u, Diagnostics: []protocol.Diagnostic{}})
	d.pubMu.Unlock()
	return nil
}

// closeAll stops every document's diagnostics worker.
func (st *store) closeAll() {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, d := range st.docs {
		d.close()
	}
}

// close stops the document's diagnostics worker.
func (d *document) close() {
	d.mu.Lock()
	d.closed = true
	d.pending = nil
	d.mu.Unlock()
}

// changeEvent is a TextDocumentContentChangeEvent. The protocol package's
// type has a Range that cannot be absent, which cannot tell a full-text
// change from an insertion at the start of the file; this one can.
type changeEvent struct {
	Range *protocol.Range `json:"range,omitempty"`
	Text  string          `json:"text"`
}

// didChangeParams are the parameters of textDocument/didChange.
type didChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []changeEvent                            `json:"contentChanges"`
}

// applyChanges returns the File of f's text with the changes applied in
// order, and how its text differs from f's (an empty edit when the texts
// are the same). A ranged change makes a
// File that shares f's text but where it changes (see [diag.File.Edited]),
// and its range is found with the line index of the text before it, which
// the previous snapshot has usually built already; only a change of the
// whole text makes a text afresh.
func applyChanges(f *diag.File, changes []changeEvent) (g *diag.File, e project.Edit) {
	g = f
	whole, some := false, false
	for _, c := range changes {
		if c.Range == nil {
			g, whole = diag.NewFile(f.Path, []byte(c.Text)), true
			continue
		}
		sp := spanOf(g, *c.Range)
		if sp.Len() == 0 && c.Text == "" {
			continue
		}
		g = g.Edited(sp, c.Text)
		if !some {
			e, some = project.Edit{Span: sp, NewLen: len(c.Text)}, true
			continue
		}
		e = joinEdits(e, project.Edit{Span: sp, NewLen: len(c.Text)})
	}
	if whole {
		return g, project.Changed(f.Bytes(), g.Bytes())
	}
	return g, e
}

// joinEdits returns the one edit of a text that two edits in turn make:
// first a (offsets in the text), then b (offsets in the text after the
// first).
func joinEdits(a, b project.Edit) project.Edit {
	start := min(a.Span.Start, b.Span.Start)
	end := max(a.Span.Start+a.NewLen, b.Span.End) // in the text after the first edit
	return project.Edit{Span: diag.Span{Start: start, End: end - a.NewLen + a.Span.Len()}, NewLen: end - start - b.Span.Len() + b.NewLen}
}
