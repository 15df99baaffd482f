// Targets: the providers whose API the client wants a document's tools
// checked against (see schema.Targets). The client chooses them in its
// initializationOptions or its workspace configuration, under the key
// "targets" (a list of names, or one string of names separated by commas)
// or "target", at the top level or in a "gram" section:
//
//	{"initializationOptions": {"targets": ["openai-strict", "gemini"]}}
//	{"settings": {"gram": {"target": "gemini"}}}    (didChangeConfiguration)
//
// A document's diagnostics are then what `gramc check --target ...` reports
// of it: the analysis's own, and the target diagnostics computed from its
// program once per analysis and set of targets; their fixes are quick
// fixes like any other. A configuration change republishes the
// diagnostics of every open document; an unknown name is reported to the
// user with window/showMessage and left out.

package lsp

import (
	"context"
	"maps"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/schema"
)

// targetDiags are the target diagnostics of an analysis for one set of
// targets, named by key.
type targetDiags struct {
	key   string
	diags diag.List
}

// targetSettings reads the targets of a client's settings or
// initialization options, and whether they name any (a configuration
// without them leaves the targets as they are). Unknown names are returned
// apart.
func targetSettings(v any) (targets []*schema.Target, unknown []string, ok bool) {
	m, _ := v.(map[string]any)
	if g, isMap := m["gram"].(map[string]any); isMap {
		m = g
	}
	raw, has := m["targets"]
	if !has {
		raw, has = m["target"]
	}
	if !has {
		return nil, nil, false
	}
	var names []string
	switch x := raw.(type) {
	case string:
		names = strings.Split(x, ",")
	case []any:
		for _, n := range x {
			if s, isString := n.(string); isString {
				names = append(names, s)
			}
		}
	}
	targets, unknown = schema.ParseTargets(names)
	return targets, unknown, true
}

// configureTargets sets the targets from the client's settings v, and
// reports whether they changed.
func (s *server) configureTargets(v any) bool {
	tgs, unknown, ok := targetSettings(v)
	if len(unknown) > 0 {
		msg := "gram: unknown target " + strings.Join(unknown, ", ") + " (the targets are " + strings.Join(schema.TargetNames(), ", ") + ")"
		s.log.Warn("unknown targets", "targets", unknown)
		s.notify("window/showMessage", protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: msg})
	}
	if !ok {
		return false
	}
	old := s.targets.Load()
	if old != nil && slices.Equal(*old, tgs) || old == nil && len(tgs) == 0 {
		return false
	}
	s.targets.Store(&tgs)
	s.log.Info("targets", "targets", targetKey(tgs))
	return true
}

// targetKey names a set of targets.
func targetKey(tgs []*schema.Target) string {
	names := make([]string, len(tgs))
	for i, t := range tgs {
		names[i] = t.Name
	}
	return strings.Join(names, ",")
}

// diagnosticsOf returns the diagnostics of an analysis: its own and, when
// the client chose targets, theirs, computed once per analysis and set of
// targets. A NAME_test.gram document has none: its tools are NAME.gram's,
// and its records may be declared there, outside the document.
func (s *server) diagnosticsOf(an *analysis) diag.List {
	p := s.targets.Load()
	if p == nil || len(*p) == 0 || an.Prog == nil || schema.SubjectPath(an.File.Path) != "" {
		return an.Diags
	}
	key := targetKey(*p)
	if td := an.targets.Load(); td != nil && td.key == key {
		return td.diags
	}
	all := schema.WithTargets(an.Diags, *p, an.Prog)
	an.targets.Store(&targetDiags{key: key, diags: all})
	return all
}

// DidChangeConfiguration reads the targets from the new settings and, when
// they changed, publishes every open document's diagnostics again.
func (s *server) DidChangeConfiguration(_ context.Context, p *protocol.DidChangeConfigurationParams) error {
	if s.configureTargets(p.Settings) {
		s.docs.update(func() []*document { return slices.Collect(maps.Values(s.docs.docs)) })
	}
	return nil
}
