// Diagnostics: computed off the request path and published with the version
// they were computed for.
//
// Each open document has at most one worker goroutine. A change (or a save)
// sets the document's pending snapshot and starts the worker if it is idle.
// The worker takes the newest pending snapshot, analyses it, and publishes
// its diagnostics unless a newer snapshot arrived meanwhile; then it looks
// for more work. So an edit made while the server is idle is analysed at
// once, a burst of edits is analysed once (for its last version), and
// diagnostics are never published for a text the client no longer has.

package lsp

import (
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/schema"
)

// publishParams are the parameters of textDocument/publishDiagnostics. The
// protocol package's type leaves out version 0, a valid version; this one
// always sends the version it has.
type publishParams struct {
	URI         protocol.DocumentURI  `json:"uri"`
	Version     *int32                `json:"version,omitempty"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
}

// schedule asks for the diagnostics of snap, the newest snapshot of d.
func (s *server) schedule(d *document, snap *snapshot) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	d.pending = snap
	if d.running {
		d.mu.Unlock()
		return
	}
	d.running = true
	d.mu.Unlock()
	go s.diagnose(d)
}

// diagnose is a document's diagnostics worker.
func (s *server) diagnose(d *document) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic while computing diagnostics", "uri", d.uri, "panic", r)
			d.mu.Lock()
			d.running = false
			d.mu.Unlock()
		}
	}()
	for {
		busy()
		d.mu.Lock()
		snap := d.pending
		d.pending = nil
		if snap == nil || d.closed {
			d.running = false
			d.mu.Unlock()
			return
		}
		d.mu.Unlock()

		// Given up when a newer version arrives first: the work is left
		// for a request that holds this version, which computes it in full.
		an := snap.analysis(snap.superseded.Load)
		if an == nil {
			continue // the newer version is pending
		}
		params := publishParams{URI: snap.URI, Version: &snap.Version, Diagnostics: toLSPDiagnostics(an.File, snap.URI, s.diagnosticsOf(an))}
		s.watchNamedFiles(an)

		d.pubMu.Lock()
		d.mu.Lock()
		stale := d.pending != nil || d.closed
		d.mu.Unlock()
		if !stale {
			s.notify("textDocument/publishDiagnostics", params)
		}
		d.pubMu.Unlock()
		busy()
	}
}

// toLSPDiagnostics converts diagnostics of f to the protocol's form. The
// result is never nil.
func toLSPDiagnostics(f *diag.File, u protocol.DocumentURI, ds diag.List) []protocol.Diagnostic {
	out := make([]protocol.Diagnostic, 0, len(ds))
	for _, d := range ds.InOrder(f) {
		out = append(out, toLSPDiagnostic(f, u, d))
	}
	return out
}

// toLSPDiagnostic converts one diagnostic. The detail (how to fix the
// problem) follows the message on a line of its own; the code is the
// diagnostic's stable code; a related location in another file of the
// package has that file's URI; unused tools are tagged unnecessary, which
// editors show faded.
func toLSPDiagnostic(f *diag.File, u protocol.DocumentURI, d diag.Diagnostic) protocol.Diagnostic {
	msg := d.Message
	if d.Detail != "" {
		msg += "\n" + d.Detail
	}
	pd := protocol.Diagnostic{
		Range:    rangeOf(f, d.Span),
		Severity: protocol.DiagnosticSeverity(d.Severity), // the same numbers
		Code:     d.Code,
		Source:   "gram",
		Message:  msg,
	}
	for _, r := range d.Related {
		loc := protocol.Location{URI: u, Range: rangeOf(f, r.Span)}
		if r.Elsewhere(f) {
			loc = protocol.Location{URI: pathURI(r.File.Path), Range: rangeOf(r.File, r.Span)}
		}
		pd.RelatedInformation = append(pd.RelatedInformation, protocol.DiagnosticRelatedInformation{Location: loc, Message: r.Message})
	}
	if d.Code == schema.CodeUnusedTool {
		pd.Tags = []protocol.DiagnosticTag{protocol.DiagnosticTagUnnecessary}
	}
	return pd
}
