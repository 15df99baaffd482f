// Document and workspace symbols.
//
// The outline of a document is hierarchical: agents hold their tools (inline
// tools with their parameters, references to shared tools and to the agents
// they call as tools) and their signature element with its parameters,
// tools hold their parameters, records their fields, and other named
// patterns of plain gram appear under their identity. The outline is the document's alone,
// in a package too. Workspace symbols search the open documents, the other
// `.gram` files of their directories (the files of their packages, found
// with no workspace folder too), and the `.gram` files of the workspace
// folders, each file once, an open one as its buffer; files on disk are
// parsed once and again only when they change.

package lsp

import (
	"cmp"
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// DocumentSymbol answers textDocument/documentSymbol with the document's
// outline.
func (s *server) DocumentSymbol(ctx context.Context, an *analysis, p *protocol.DocumentSymbolParams) ([]protocol.DocumentSymbol, error) {
	return an.documentSymbols(), nil
}

// documentSymbols returns the outline (empty, not nil, when there is none).
func (a *analysis) documentSymbols() []protocol.DocumentSymbol {
	ix := a.Index()
	out := []protocol.DocumentSymbol{}
	for _, p := range a.Doc.Lowered() {
		if p.Kind == parser.HeaderKind {
			continue
		}
		out = append(out, a.patternSymbols(ix, p)...)
	}
	return out
}

// patternSymbols returns the symbols of a pattern: one for a named pattern
// (with its named elements as children), or those of its elements for an
// anonymous one.
func (a *analysis) patternSymbols(ix *ide.Index, p *parser.Pattern) []protocol.DocumentSymbol {
	for p.Kind == parser.AnnotatedKind && len(p.Elements) == 1 && p.Subject.Identity == "" {
		p = p.Elements[0]
	}
	if d := ix.SpanDecl(p.Span()); d != nil && (p.Kind == parser.GroupKind || p.Kind == parser.NodeKind) {
		switch d.Kind {
		case ide.KindAgent:
			return []protocol.DocumentSymbol{a.agentSymbol(ix, d.Agent, p)}
		case ide.KindTool:
			return []protocol.DocumentSymbol{a.toolSymbol(d.Tool)}
		case ide.KindRecord:
			return []protocol.DocumentSymbol{a.recordSymbol(d.Record)}
		}
	}
	if p.Kind == parser.GroupKind && p.Subject.HasLabel(schema.TestLabel) {
		if sym, ok := a.testSymbol(p); ok {
			return []protocol.DocumentSymbol{sym}
		}
	}
	var children []protocol.DocumentSymbol
	// The hops of a walk share their inner nodes: (b) in (a)-->(b)-->(c)
	// ends one anonymous relationship and starts the next, and is listed
	// once.
	shared := map[*parser.Pattern]bool{}
	for _, e := range p.Elements {
		if e.IsReference() {
			continue
		}
		if p.Kind == parser.WalkKind && e.Kind == parser.RelationshipKind && e.Subject.Identity == "" {
			for _, n := range e.Elements {
				if !n.IsReference() && !shared[n] {
					shared[n] = true
					children = append(children, a.patternSymbols(ix, n)...)
				}
			}
			continue
		}
		children = append(children, a.patternSymbols(ix, e)...)
	}
	if p.Subject.Identity == "" || p.IsReference() {
		return children
	}
	kind := protocol.SymbolKindObject
	switch p.Kind {
	case parser.NodeKind:
		kind = protocol.SymbolKindVariable
	case parser.RelationshipKind:
		kind = protocol.SymbolKindEvent
	}
	sym := a.symbol(p.Subject.Identity, labelsText(p.Subject.Labels), kind, p.Span(), p.IdentSpan())
	sym.Children = children
	return []protocol.DocumentSymbol{sym}
}

// labelsText writes labels as in gram: ":A:B".
func labelsText(labels []string) string {
	if len(labels) == 0 {
		return ""
	}
	return ":" + strings.Join(labels, ":")
}

// symbol returns the outline entry of a declaration named name ("(unnamed)"
// when empty) whose pattern is the span whole and its name the span sel
// (the whole pattern when it has none).
func (a *analysis) symbol(name, detail string, kind protocol.SymbolKind, whole, sel diag.Span) protocol.DocumentSymbol {
	if sel.Len() == 0 {
		sel = whole
	}
	return protocol.DocumentSymbol{Name: cmp.Or(name, "(unnamed)"), Detail: detail, Kind: kind, Range: rangeOf(a.File, whole), SelectionRange: rangeOf(a.File, sel)}
}

// agentSymbol returns an agent with its tools: the agents it lists among
// them, and its signature element with its parameters.
func (a *analysis) agentSymbol(ix *ide.Index, ag *schema.Agent, p *parser.Pattern) protocol.DocumentSymbol {
	sym := a.symbol(ag.Name, ag.Model.String(), protocol.SymbolKindClass, ag.Span, ag.NameSpan)
	for _, e := range p.Elements {
		switch {
		case e.Kind == parser.ReferenceKind:
			name := e.Subject.Identity
			detail, kind := "tool reference", protocol.SymbolKindFunction
			if t := ag.Tool(name); t != nil && t.Agent != "" {
				detail, kind = "agent reference", protocol.SymbolKindClass
			}
			sym.Children = append(sym.Children, a.symbol(name, detail, kind, e.Span(), e.Span()))
		case ag.Signature && ag.AsTool != nil && e.Span() == ag.AsTool.SignatureSpan:
			sig := a.symbol("signature", ide.Signature(ag.AsTool), protocol.SymbolKindInterface, e.Span(), e.Span())
			sig.Children = a.paramSymbols(ag.AsTool.Params, protocol.SymbolKindVariable)
			sym.Children = append(sym.Children, sig)
		default:
			if d := ix.SpanDecl(e.Span()); d != nil && d.Kind == ide.KindTool {
				sym.Children = append(sym.Children, a.toolSymbol(d.Tool))
			}
		}
	}
	return sym
}

// toolSymbol returns a tool with its parameters.
func (a *analysis) toolSymbol(t *schema.Tool) protocol.DocumentSymbol {
	sym := a.symbol(t.Name, ide.Signature(t), protocol.SymbolKindFunction, t.Span, t.NameSpan)
	sym.Children = a.paramSymbols(t.Params, protocol.SymbolKindVariable)
	return sym
}

// recordSymbol returns a record with its fields.
func (a *analysis) recordSymbol(r *schema.Record) protocol.DocumentSymbol {
	sym := a.symbol(r.Name, "record", protocol.SymbolKindStruct, r.Span, r.NameSpan)
	sym.Children = a.paramSymbols(r.Fields, protocol.SymbolKindField)
	return sym
}

// paramSymbols returns the symbols of a tool's parameters or a record's
// fields, of the given kind.
func (a *analysis) paramSymbols(ps []*schema.Param, kind protocol.SymbolKind) []protocol.DocumentSymbol {
	var out []protocol.DocumentSymbol
	for _, p := range ps {
		out = append(out, a.symbol(p.Name, ide.TypeText(p.Type), kind, p.Span, p.NameSpan))
	}
	return out
}

// Symbols answers workspace/symbol: the symbols of the open documents and of
// the workspace folders' .gram files whose names match the query (letters in
// order, ignoring case).
func (s *server) Symbols(ctx context.Context, p *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	v, _ := ctx.Value(viewKey{}).(view)
	open := map[string]bool{}
	var out []protocol.SymbolInformation
	uris := slices.Sorted(maps.Keys(v))
	for _, u := range uris {
		if path := uriPath(u); path != "" {
			open[filepath.Clean(path)] = true
		}
		out = appendMatching(out, p.Query, u, v[u].Analysis().documentSymbols(), "")
	}
	files, err := s.ws.files(ctx)
	if err != nil {
		return nil, err
	}
	files = append(packageFiles(uris), files...)
	for _, path := range files {
		if open[path] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		open[path] = true // listed once
		out = appendMatching(out, p.Query, pathURI(path), s.ws.symbols(path), "")
		if len(out) >= maxWorkspaceSymbols {
			break
		}
	}
	return out[:min(len(out), maxWorkspaceSymbols)], nil
}

// packageFiles returns the .gram files of the directories of the open
// documents uris, in path order.
func packageFiles(uris []protocol.DocumentURI) []string {
	var out []string
	seen := map[string]bool{}
	for _, u := range uris {
		if dir, paths := listDir(u); !seen[dir] {
			seen[dir] = true
			out = append(out, paths...)
		}
	}
	return out
}

// maxWorkspaceSymbols caps the answer to workspace/symbol.
const maxWorkspaceSymbols = 1000

// appendMatching flattens document symbols into symbol information, keeping
// those that match the query.
func appendMatching(out []protocol.SymbolInformation, query string, u protocol.DocumentURI, syms []protocol.DocumentSymbol, container string) []protocol.SymbolInformation {
	for _, s := range syms {
		if s.Detail != "tool reference" && fuzzyMatch(query, s.Name) {
			out = append(out, protocol.SymbolInformation{
				Name:          s.Name,
				Kind:          s.Kind,
				Location:      protocol.Location{URI: u, Range: s.SelectionRange},
				ContainerName: container,
			})
		}
		out = appendMatching(out, query, u, s.Children, s.Name)
	}
	return out
}

// fuzzyMatch reports whether the letters of query appear in name in order,
// ignoring case.
func fuzzyMatch(query, name string) bool {
	name = strings.ToLower(name)
	for _, r := range strings.ToLower(strings.TrimSpace(query)) {
		var found bool
		if _, name, found = strings.Cut(name, string(r)); !found {
			return false
		}
	}
	return true
}

// workspace is what the server knows of the workspace folders.
type workspace struct {
	mu      sync.Mutex
	folders []string
	// cache holds the outlines of files on disk.
	cache statCache[[]protocol.DocumentSymbol]
	// list caches the folders' .gram files for a short while.
	list     []string
	listedAt time.Time
}

// updateFolders adds and removes workspace folders.
func (w *workspace) updateFolders(add, remove []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range remove {
		if i := slices.Index(w.folders, filepath.Clean(r)); i >= 0 {
			w.folders = slices.Delete(w.folders, i, i+1)
		}
	}
	for _, a := range add {
		w.folders = append(w.folders, filepath.Clean(a))
	}
	w.list = nil
}

// forget drops what is known of a file.
func (w *workspace) forget(path string) {
	w.cache.forget(path)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = nil
}

// listTTL is how long a listing of the folders is reused.
const listTTL = 2 * time.Second

// maxWorkspaceFiles bounds the files searched for workspace symbols.
const maxWorkspaceFiles = 20000

// files lists the .gram files of the folders, in path order: those of
// their trees as `gramc check DIR/...` walks them ([project.Walk]), a
// directory that cannot be read skipped.
func (w *workspace) files(ctx context.Context) ([]string, error) {
	w.mu.Lock()
	if w.list != nil && time.Since(w.listedAt) < listTTL {
		l := w.list
		w.mu.Unlock()
		return l, nil
	}
	folders := append([]string(nil), w.folders...)
	w.mu.Unlock()
	var out []string
	seen := map[string]bool{}
	for _, root := range folders {
		_, err := project.Walk(root, project.Tree, func(path string) error {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if path = filepath.Clean(path); !seen[path] {
				seen[path] = true
				out = append(out, path)
			}
			if len(out) >= maxWorkspaceFiles {
				return filepath.SkipAll
			}
			return nil
		}, func(error) error { return nil })
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	slices.Sort(out)
	w.mu.Lock()
	w.list, w.listedAt = out, time.Now()
	w.mu.Unlock()
	return out, nil
}

// symbols returns the outline of a file on disk, parsing it if it is new or
// changed.
func (w *workspace) symbols(path string) []protocol.DocumentSymbol {
	syms, _ := w.cache.get(path, func(path string) ([]protocol.DocumentSymbol, error) {
		text, err := inputfile.Read(path, 0) // not a pipe, a device or a huge file
		if err != nil {
			return nil, err
		}
		return newSnapshot(pathURI(path), 0, text).Analysis().documentSymbols(), nil
	})
	return syms
}
