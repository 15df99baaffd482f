// Snapshots and their analysis.
//
// A snapshot is one version of a document: immutable text and, computed at
// most once and only when something asks, its analysis. The analysis is
// the check of package project, the front door `gramc check` goes through
// too ([project.Check], from the check of the version before and with the
// rest of the document's package), so the diagnostics an editor shows are
// those the command line reports. A panic in the toolchain becomes an
// internal-error diagnostic ([ide.Check]) rather than a dead server.

package lsp

import (
	"sync"
	"sync/atomic"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/project"
)

// snapshot is one version of an open document.
type snapshot struct {
	// URI identifies the document.
	URI protocol.DocumentURI
	// Version is the client's version number of this text.
	Version int32
	// File holds the text; it is never modified.
	File *diag.File

	// mu is held while the analysis is computed, so that concurrent callers
	// share one computation.
	mu sync.Mutex
	an atomic.Pointer[analysis]
	// same is an earlier snapshot with the same text, whose analysis this
	// one shares (an edit undone, a change that changed nothing).
	same *snapshot
	// base is an earlier snapshot of the document; when its analysis is done,
	// this one's is computed from it (see [project.Request.Prev]).
	base atomic.Pointer[snapshot]
	// editFrom is the text of the version before, when this one was made
	// by an edit of it (see store.didChange), and edit how they differ.
	editFrom *diag.File
	edit     project.Edit
	// pkg is the rest of the document's package, or nil when its
	// directory holds no other .gram file (see package.go).
	pkg *project.Sources
	// superseded is set when a newer version of the document arrives: an
	// analysis computed only for diagnostics then stops early.
	superseded atomic.Bool
}

// newSnapshot returns a snapshot of text, which the caller must not modify
// afterwards.
func newSnapshot(u protocol.DocumentURI, version int32, text []byte) *snapshot {
	return &snapshot{URI: u, Version: version, File: diag.NewFile(displayPath(u), text)}
}

// Analysis returns the snapshot's analysis, computing it on first use. It is
// safe for concurrent use; concurrent callers share one computation.
func (s *snapshot) Analysis() *analysis { return s.analysis(nil) }

// analysis computes the analysis unless stop reports true between its
// stages (then it returns nil).
func (s *snapshot) analysis(stop func() bool) *analysis {
	if an := s.an.Load(); an != nil {
		return an
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if an := s.an.Load(); an != nil {
		return an
	}
	if s.same != nil {
		an := s.same.Analysis()
		s.done(an)
		return an
	}
	var prev *analysis
	if b := s.base.Load(); b != nil {
		prev = b.an.Load()
	}
	var edit *project.Edit
	if prev != nil && s.editFrom == prev.File {
		e := s.edit
		edit = &e
	}
	an := analyzeEdit(s.File, prev, edit, s.pkg, stop)
	if an != nil {
		s.done(an)
	}
	return an
}

// done records the analysis and lets go of the snapshot it was made from.
func (s *snapshot) done(an *analysis) {
	s.an.Store(an)
	s.same, s.editFrom = nil, nil
	s.base.Store(nil)
}

// analysedBase returns the snapshot a newer version of the document is
// analysed from: s when its analysis is done, or, when edits come faster
// than analyses, the one s was to be analysed from (so no chain of old
// texts builds up).
func (s *snapshot) analysedBase() *snapshot {
	if b := s.base.Load(); b != nil && s.an.Load() == nil {
		return b
	}
	return s
}

// analysis is what the toolchain makes of a text, with what the language
// server knows of it besides: the editor features of package ide answer on
// its ide.Analysis, and the package's other files and the client's targets
// are the server's. It is immutable.
type analysis struct {
	*ide.Analysis
	// named are the files a bindings document names, as its check read
	// them (see bindingsfile.go).
	named []string
	// targets are the diagnostics of the client's targets (see
	// targets.go), with the analysis's own.
	targets atomic.Pointer[targetDiags]
}

// analyzeHook, when set (by tests), runs as an analysis of f starts; it may
// block.
// It is read by the workers of every server of the process, so it is set
// atomically (see setAnalyzeHook).
var analyzeHook atomic.Pointer[func(f *diag.File)]

// analyzeEdit checks f; with prev, the analysis of an earlier text of the
// same document, with edit made (nil: found by comparing the texts), it
// parses and compiles again only what the change between them touches.
// Its package is the rest of pkg (nil: none). When stop is set and reports
// true between the stages (parsing the syntax, lowering, compiling), it
// gives up and returns nil.
func analyzeEdit(f *diag.File, prev *analysis, edit *project.Edit, pkg *project.Sources, stop func() bool) *analysis {
	if hook := analyzeHook.Load(); hook != nil {
		(*hook)(f)
	}
	var prevIDE *ide.Analysis
	if prev != nil {
		prevIDE = prev.Analysis
	}
	var named []string
	a := ide.Check(f, project.Request{
		Edit: edit, Editing: true,
		// A _test.gram document alone sees the agent file beside it; the
		// files a bindings document names are read through namedFiles.
		Subject: true, Package: pkg, Stop: stop,
		ReadNamed: func(path string) ([]byte, error) {
			named = append(named, path)
			return readNamed(path)
		},
	}, prevIDE)
	if a == nil {
		return nil
	}
	return &analysis{Analysis: a, named: named}
}
