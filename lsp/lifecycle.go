// The lifecycle: initialize (and the capabilities the server announces),
// initialized, shutdown; exit is in server.go. Workspace folders are kept for
// workspace symbols.

package lsp

import (
	"cmp"
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Commands the server executes (workspace/executeCommand).
const (
	// CommandToolSchema returns the JSON Schema of a tool. Its arguments
	// are the document URI, then a position in it ({line, character}) or a
	// tool name, then optionally a format: "jsonschema" (the default),
	// "openai" or "mcp".
	CommandToolSchema = "gram.toolSchema"
	// CommandShowToolSchema is CommandToolSchema under the name the VS Code
	// extension sends. It is accepted but not announced, so that the
	// extension's own command of that name does not clash with the one a
	// language client registers for each announced command.
	CommandShowToolSchema = "gram.showToolSchema"
)

// capabilities are the server capabilities: the protocol package's, with
// the LSP 3.16-3.17 fields it predates.
type capabilities struct {
	protocol.ServerCapabilities
	PositionEncoding  string `json:"positionEncoding,omitempty"`
	InlayHintProvider bool   `json:"inlayHintProvider,omitempty"`
}

// initializeResult is the answer to initialize.
type initializeResult struct {
	Capabilities capabilities         `json:"capabilities"`
	ServerInfo   *protocol.ServerInfo `json:"serverInfo,omitempty"`
}

// serverCapabilities lists what the server does.
func serverCapabilities() capabilities {
	return capabilities{
		ServerCapabilities: protocol.ServerCapabilities{
			TextDocumentSync: protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindIncremental,
				Save:      &protocol.SaveOptions{},
			},
			HoverProvider:             true,
			DefinitionProvider:        true,
			ReferencesProvider:        true,
			DocumentHighlightProvider: true,
			CompletionProvider: &protocol.CompletionOptions{
				TriggerCharacters: []string{":", "{", ",", "|", "\"", "/", " "},
				ResolveProvider:   true,
			},
			DocumentSymbolProvider:          true,
			WorkspaceSymbolProvider:         true,
			FoldingRangeProvider:            true,
			SelectionRangeProvider:          true,
			RenameProvider:                  &protocol.RenameOptions{PrepareProvider: true},
			DocumentFormattingProvider:      true,
			DocumentRangeFormattingProvider: true,
			CodeActionProvider: &protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{protocol.QuickFix, protocol.Source},
			},
			ExecuteCommandProvider: &protocol.ExecuteCommandOptions{Commands: []string{CommandToolSchema, CommandRunTest}},
			CodeLensProvider:       &protocol.CodeLensOptions{},
			SemanticTokensProvider: map[string]any{
				"legend": semanticLegend(),
				"full":   true,
				"range":  false,
			},
			Workspace: &protocol.ServerCapabilitiesWorkspace{
				WorkspaceFolders: &protocol.ServerCapabilitiesWorkspaceFolders{Supported: true, ChangeNotifications: true},
			},
		},
		PositionEncoding:  "utf-16",
		InlayHintProvider: true,
	}
}

// initialize answers the initialize request.
func (s *server) initialize(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	var p protocol.InitializeParams
	if len(req.Params()) > 0 && !decode(ctx, reply, req, &p) {
		return nil
	}
	folders := folderPaths(p.WorkspaceFolders)
	if root := cmp.Or(uriPath(p.RootURI), p.RootPath); len(folders) == 0 && root != "" {
		folders = append(folders, root)
	}
	s.ws.updateFolders(folders, nil)
	if w := p.Capabilities.Workspace; w != nil && w.DidChangeWatchedFiles != nil {
		s.watches.dynamic.Store(w.DidChangeWatchedFiles.DynamicRegistration)
	}
	s.refreshes = supportedRefreshes(req.Params())
	s.configureTargets(p.InitializationOptions)
	s.state.Store(int32(stateRunning))
	s.log.Info("initialize", "folders", folders)
	return reply(ctx, initializeResult{
		Capabilities: serverCapabilities(),
		ServerInfo:   &protocol.ServerInfo{Name: "gram-lsp", Version: cmp.Or(s.opts.Version, "devel")},
	}, nil)
}

// supportedRefreshes returns the refresh requests of inlay hints, semantic
// tokens and code lenses that the client supports, by the parameters of
// initialize (the protocol package predates that of inlay hints).
func supportedRefreshes(params json.RawMessage) []string {
	var p struct {
		Capabilities struct {
			Workspace map[string]json.RawMessage `json:"workspace"`
		} `json:"capabilities"`
	}
	_ = json.Unmarshal(params, &p) // initialize decoded them already
	var out []string
	for _, view := range []string{"inlayHint", "semanticTokens", "codeLens"} {
		var c struct {
			RefreshSupport bool `json:"refreshSupport"`
		}
		if json.Unmarshal(p.Capabilities.Workspace[view], &c) == nil && c.RefreshSupport {
			out = append(out, "workspace/"+view+"/refresh")
		}
	}
	return out
}

// initialized asks a client that registers file watchers dynamically to
// watch the .gram files, bindings files among them: a change of one on
// disk changes the packages of the open documents of its directory (see
// DidChangeWatchedFiles). A client that also watches them itself may
// report a change twice; it is handled again, to the same effect.
func (s *server) initialized(context.Context, *struct{}) error {
	s.watch([]string{"**/*.gram"})
	return nil
}

// shutdown answers the shutdown request: diagnostics stop, and every later
// request but exit is refused.
func (s *server) shutdown(ctx context.Context, reply jsonrpc2.Replier, _ jsonrpc2.Request) error {
	s.state.Store(int32(stateShutdown))
	s.docs.closeAll()
	return reply(ctx, nil, nil)
}

// DidChangeWorkspaceFolders updates the folders searched for workspace
// symbols.
func (s *server) DidChangeWorkspaceFolders(_ context.Context, p *protocol.DidChangeWorkspaceFoldersParams) error {
	s.ws.updateFolders(folderPaths(p.Event.Added), folderPaths(p.Event.Removed))
	return nil
}

// folderPaths returns the paths of the workspace folders that are files.
func folderPaths(folders []protocol.WorkspaceFolder) []string {
	var out []string
	for _, f := range folders {
		if path := uriPath(protocol.DocumentURI(f.URI)); path != "" {
			out = append(out, path)
		}
	}
	return out
}

// DidChangeWatchedFiles forgets what the server knows of changed files,
// and analyses the open documents of their directories again.
func (s *server) DidChangeWatchedFiles(_ context.Context, p *protocol.DidChangeWatchedFilesParams) error {
	var paths []string
	for _, c := range p.Changes {
		if path := uriPath(c.URI); path != "" {
			s.ws.forget(path)
			paths = append(paths, path)
		}
	}
	// The packages of open documents (see package.go).
	s.docs.filesChanged(paths)
	return nil
}
