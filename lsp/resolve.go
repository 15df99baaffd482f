// Completion item resolution: a long list of tools is sent with names only,
// and the editor asks for the signature and description of the item the
// user looks at (completionItem/resolve), so that a completion in a file of
// thousands of tools stays small and fast.

package lsp

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/schema"
)

// completionData is what a completion item carries for its resolution: the
// document and the top-level tool it names.
type completionData struct {
	URI  protocol.DocumentURI `json:"uri"`
	Tool string               `json:"tool"`
}

// withURI records the document in the items to be resolved.
func withURI(items []protocol.CompletionItem, u protocol.DocumentURI) {
	for i := range items {
		if d, ok := items[i].Data.(completionData); ok {
			d.URI = u
			items[i].Data = d
		}
	}
}

// CompletionResolve answers completionItem/resolve: it adds a tool's
// signature and description to its item. An item it cannot resolve (the
// document was closed, the tool renamed) comes back as it was.
func (s *server) CompletionResolve(ctx context.Context, it *protocol.CompletionItem) (*protocol.CompletionItem, error) {
	raw, err := json.Marshal(it.Data)
	var d completionData
	if err != nil || json.Unmarshal(raw, &d) != nil || d.Tool == "" {
		return it, nil
	}
	snap, err := s.snapshot(ctx, d.URI)
	if err != nil {
		return it, nil
	}
	an := snap.Analysis()
	if t := an.names().tool(an.Prog, d.Tool); t != nil {
		toolDetail(it, t)
	} else if pn := an.packageNames(); pn != nil {
		if pd, ok := lookup(pn.toolTable(), d.Tool); ok {
			pkgToolDetail(it, pd)
		}
	}
	return it, nil
}

// toolDetail fills in a tool item's signature and description.
func toolDetail(it *protocol.CompletionItem, t *schema.Tool) {
	it.Detail = ide.Signature(t)
	it.Documentation = protocol.MarkupContent{Kind: protocol.Markdown, Value: t.Description}
}

// pkgToolDetail fills in the item of a tool another file of the package
// declares: its file and signature, and its description.
func pkgToolDetail(it *protocol.CompletionItem, d pkgDecl) {
	toolDetail(it, d.tool)
	it.Detail = d.where() + ": " + it.Detail
}

// tool returns the top-level tool of p, the program the tables are of,
// with the given name, or nil.
func (nt *nameTables) tool(p *schema.Program, name string) *schema.Tool {
	key := strings.ToLower(name)
	es := nt.tools
	for i := sort.Search(len(es), func(i int) bool { return es[i].key >= key }); i < len(es) && es[i].key == key; i++ {
		if es[i].name == name {
			return p.Tools[es[i].v]
		}
	}
	return nil
}
