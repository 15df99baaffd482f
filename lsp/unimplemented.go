// unimplemented is the stub half of the protocol.Server interface: the
// protocol package has no stub server, so every method is written out here.

package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// unimplemented implements every method of [protocol.Server] by answering
// MethodNotFound (or, for notifications, by ignoring them). [server] embeds it
// and overrides the methods it implements, so a method added to the interface
// never breaks the build and never reaches a client as anything but
// MethodNotFound.
type unimplemented struct{}

var _ protocol.Server = unimplemented{}

// Initialize answers initialize with MethodNotFound.
func (unimplemented) Initialize(_ context.Context, _ *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	return nil, notFound("initialize")
}

// Initialized ignores the initialized notification.
func (unimplemented) Initialized(_ context.Context, _ *protocol.InitializedParams) error {
	return nil
}

// Shutdown answers shutdown with MethodNotFound.
func (unimplemented) Shutdown(_ context.Context) error {
	return notFound("shutdown")
}

// Exit ignores the exit notification.
func (unimplemented) Exit(_ context.Context) error {
	return nil
}

// WorkDoneProgressCancel ignores the window/workDoneProgress/cancel notification.
func (unimplemented) WorkDoneProgressCancel(_ context.Context, _ *protocol.WorkDoneProgressCancelParams) error {
	return nil
}

// LogTrace ignores the $/logTrace notification.
func (unimplemented) LogTrace(_ context.Context, _ *protocol.LogTraceParams) error {
	return nil
}

// SetTrace ignores the $/setTrace notification.
func (unimplemented) SetTrace(_ context.Context, _ *protocol.SetTraceParams) error {
	return nil
}

// CodeAction answers textDocument/codeAction with MethodNotFound.
func (unimplemented) CodeAction(_ context.Context, _ *protocol.CodeActionParams) ([]protocol.CodeAction, error) {
	return nil, notFound("textDocument/codeAction")
}

// CodeLens answers textDocument/codeLens with MethodNotFound.
func (unimplemented) CodeLens(_ context.Context, _ *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	return nil, notFound("textDocument/codeLens")
}

// CodeLensResolve answers codeLens/resolve with MethodNotFound.
func (unimplemented) CodeLensResolve(_ context.Context, _ *protocol.CodeLens) (*protocol.CodeLens, error) {
	return nil, notFound("codeLens/resolve")
}

// ColorPresentation answers textDocument/colorPresentation with MethodNotFound.
func (unimplemented) ColorPresentation(_ context.Context, _ *protocol.ColorPresentationParams) ([]protocol.ColorPresentation, error) {
	return nil, notFound("textDocument/colorPresentation")
}

// Completion answers textDocument/completion with MethodNotFound.
func (unimplemented) Completion(_ context.Context, _ *protocol.CompletionParams) (*protocol.CompletionList, error) {
	return nil, notFound("textDocument/completion")
}

// CompletionResolve answers completionItem/resolve with MethodNotFound.
func (unimplemented) CompletionResolve(_ context.Context, _ *protocol.CompletionItem) (*protocol.CompletionItem, error) {
	return nil, notFound("completionItem/resolve")
}

// Declaration answers textDocument/declaration with MethodNotFound.
func (unimplemented) Declaration(_ context.Context, _ *protocol.DeclarationParams) ([]protocol.Location, error) {
	return nil, notFound("textDocument/declaration")
}

// Definition answers textDocument/definition with MethodNotFound.
func (unimplemented) Definition(_ context.Context, _ *protocol.DefinitionParams) ([]protocol.Location, error) {
	return nil, notFound("textDocument/definition")
}

// DidChange ignores the textDocument/didChange notification.
func (unimplemented) DidChange(_ context.Context, _ *protocol.DidChangeTextDocumentParams) error {
	return nil
}

// DidChangeConfiguration ignores the workspace/didChangeConfiguration notification.
func (unimplemented) DidChangeConfiguration(_ context.Context, _ *protocol.DidChangeConfigurationParams) error {
	return nil
}

// DidChangeWatchedFiles ignores the workspace/didChangeWatchedFiles notification.
func (unimplemented) DidChangeWatchedFiles(_ context.Context, _ *protocol.DidChangeWatchedFilesParams) error {
	return nil
}

// DidChangeWorkspaceFolders ignores the workspace/didChangeWorkspaceFolders notification.
func (unimplemented) DidChangeWorkspaceFolders(_ context.Context, _ *protocol.DidChangeWorkspaceFoldersParams) error {
	return nil
}

// DidClose ignores the textDocument/didClose notification.
func (unimplemented) DidClose(_ context.Context, _ *protocol.DidCloseTextDocumentParams) error {
	return nil
}

// DidOpen ignores the textDocument/didOpen notification.
func (unimplemented) DidOpen(_ context.Context, _ *protocol.DidOpenTextDocumentParams) error {
	return nil
}

// DidSave ignores the textDocument/didSave notification.
func (unimplemented) DidSave(_ context.Context, _ *protocol.DidSaveTextDocumentParams) error {
	return nil
}

// DocumentColor answers textDocument/documentColor with MethodNotFound.
func (unimplemented) DocumentColor(_ context.Context, _ *protocol.DocumentColorParams) ([]protocol.ColorInformation, error) {
	return nil, notFound("textDocument/documentColor")
}

// DocumentHighlight answers textDocument/documentHighlight with MethodNotFound.
func (unimplemented) DocumentHighlight(_ context.Context, _ *protocol.DocumentHighlightParams) ([]protocol.DocumentHighlight, error) {
	return nil, notFound("textDocument/documentHighlight")
}

// DocumentLink answers textDocument/documentLink with MethodNotFound.
func (unimplemented) DocumentLink(_ context.Context, _ *protocol.DocumentLinkParams) ([]protocol.DocumentLink, error) {
	return nil, notFound("textDocument/documentLink")
}

// DocumentLinkResolve answers documentLink/resolve with MethodNotFound.
func (unimplemented) DocumentLinkResolve(_ context.Context, _ *protocol.DocumentLink) (*protocol.DocumentLink, error) {
	return nil, notFound("documentLink/resolve")
}

// DocumentSymbol answers textDocument/documentSymbol with MethodNotFound.
func (unimplemented) DocumentSymbol(_ context.Context, _ *protocol.DocumentSymbolParams) ([]any, error) {
	return nil, notFound("textDocument/documentSymbol")
}

// ExecuteCommand answers workspace/executeCommand with MethodNotFound.
func (unimplemented) ExecuteCommand(_ context.Context, _ *protocol.ExecuteCommandParams) (any, error) {
	return nil, notFound("workspace/executeCommand")
}

// FoldingRanges answers textDocument/foldingRange with MethodNotFound.
func (unimplemented) FoldingRanges(_ context.Context, _ *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	return nil, notFound("textDocument/foldingRange")
}

// Formatting answers textDocument/formatting with MethodNotFound.
func (unimplemented) Formatting(_ context.Context, _ *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	return nil, notFound("textDocument/formatting")
}

// Hover answers textDocument/hover with MethodNotFound.
func (unimplemented) Hover(_ context.Context, _ *protocol.HoverParams) (*protocol.Hover, error) {
	return nil, notFound("textDocument/hover")
}

// Implementation answers textDocument/implementation with MethodNotFound.
func (unimplemented) Implementation(_ context.Context, _ *protocol.ImplementationParams) ([]protocol.Location, error) {
	return nil, notFound("textDocument/implementation")
}

// OnTypeFormatting answers textDocument/onTypeFormatting with MethodNotFound.
func (unimplemented) OnTypeFormatting(_ context.Context, _ *protocol.DocumentOnTypeFormattingParams) ([]protocol.TextEdit, error) {
	return nil, notFound("textDocument/onTypeFormatting")
}

// PrepareRename answers textDocument/prepareRename with MethodNotFound.
func (unimplemented) PrepareRename(_ context.Context, _ *protocol.PrepareRenameParams) (*protocol.Range, error) {
	return nil, notFound("textDocument/prepareRename")
}

// RangeFormatting answers textDocument/rangeFormatting with MethodNotFound.
func (unimplemented) RangeFormatting(_ context.Context, _ *protocol.DocumentRangeFormattingParams) ([]protocol.TextEdit, error) {
	return nil, notFound("textDocument/rangeFormatting")
}

// References answers textDocument/references with MethodNotFound.
func (unimplemented) References(_ context.Context, _ *protocol.ReferenceParams) ([]protocol.Location, error) {
	return nil, notFound("textDocument/references")
}

// Rename answers textDocument/rename with MethodNotFound.
func (unimplemented) Rename(_ context.Context, _ *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	return nil, notFound("textDocument/rename")
}

// SignatureHelp answers textDocument/signatureHelp with MethodNotFound.
func (unimplemented) SignatureHelp(_ context.Context, _ *protocol.SignatureHelpParams) (*protocol.SignatureHelp, error) {
	return nil, notFound("textDocument/signatureHelp")
}

// Symbols answers workspace/symbol with MethodNotFound.
func (unimplemented) Symbols(_ context.Context, _ *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	return nil, notFound("workspace/symbol")
}

// TypeDefinition answers textDocument/typeDefinition with MethodNotFound.
func (unimplemented) TypeDefinition(_ context.Context, _ *protocol.TypeDefinitionParams) ([]protocol.Location, error) {
	return nil, notFound("textDocument/typeDefinition")
}

// WillSave ignores the textDocument/willSave notification.
func (unimplemented) WillSave(_ context.Context, _ *protocol.WillSaveTextDocumentParams) error {
	return nil
}

// WillSaveWaitUntil answers textDocument/willSaveWaitUntil with MethodNotFound.
func (unimplemented) WillSaveWaitUntil(_ context.Context, _ *protocol.WillSaveTextDocumentParams) ([]protocol.TextEdit, error) {
	return nil, notFound("textDocument/willSaveWaitUntil")
}

// ShowDocument answers window/showDocument with MethodNotFound.
func (unimplemented) ShowDocument(_ context.Context, _ *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	return nil, notFound("window/showDocument")
}

// WillCreateFiles answers workspace/willCreateFiles with MethodNotFound.
func (unimplemented) WillCreateFiles(_ context.Context, _ *protocol.CreateFilesParams) (*protocol.WorkspaceEdit, error) {
	return nil, notFound("workspace/willCreateFiles")
}

// DidCreateFiles ignores the workspace/didCreateFiles notification.
func (unimplemented) DidCreateFiles(_ context.Context, _ *protocol.CreateFilesParams) error {
	return nil
}

// WillRenameFiles answers workspace/willRenameFiles with MethodNotFound.
func (unimplemented) WillRenameFiles(_ context.Context, _ *protocol.RenameFilesParams) (*protocol.WorkspaceEdit, error) {
	return nil, notFound("workspace/willRenameFiles")
}

// DidRenameFiles ignores the workspace/didRenameFiles notification.
func (unimplemented) DidRenameFiles(_ context.Context, _ *protocol.RenameFilesParams) error {
	return nil
}

// WillDeleteFiles answers workspace/willDeleteFiles with MethodNotFound.
func (unimplemented) WillDeleteFiles(_ context.Context, _ *protocol.DeleteFilesParams) (*protocol.WorkspaceEdit, error) {
	return nil, notFound("workspace/willDeleteFiles")
}

// DidDeleteFiles ignores the workspace/didDeleteFiles notification.
func (unimplemented) DidDeleteFiles(_ context.Context, _ *protocol.DeleteFilesParams) error {
	return nil
}

// CodeLensRefresh answers workspace/codeLens/refresh with MethodNotFound.
func (unimplemented) CodeLensRefresh(_ context.Context) error {
	return notFound("workspace/codeLens/refresh")
}

// PrepareCallHierarchy answers textDocument/prepareCallHierarchy with MethodNotFound.
func (unimplemented) PrepareCallHierarchy(_ context.Context, _ *protocol.CallHierarchyPrepareParams) ([]protocol.CallHierarchyItem, error) {
	return nil, notFound("textDocument/prepareCallHierarchy")
}

// IncomingCalls answers callHierarchy/incomingCalls with MethodNotFound.
func (unimplemented) IncomingCalls(_ context.Context, _ *protocol.CallHierarchyIncomingCallsParams) ([]protocol.CallHierarchyIncomingCall, error) {
	return nil, notFound("callHierarchy/incomingCalls")
}

// OutgoingCalls answers callHierarchy/outgoingCalls with MethodNotFound.
func (unimplemented) OutgoingCalls(_ context.Context, _ *protocol.CallHierarchyOutgoingCallsParams) ([]protocol.CallHierarchyOutgoingCall, error) {
	return nil, notFound("callHierarchy/outgoingCalls")
}

// SemanticTokensFull answers textDocument/semanticTokens/full with MethodNotFound.
func (unimplemented) SemanticTokensFull(_ context.Context, _ *protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	return nil, notFound("textDocument/semanticTokens/full")
}

// SemanticTokensFullDelta answers textDocument/semanticTokens/full/delta with MethodNotFound.
func (unimplemented) SemanticTokensFullDelta(_ context.Context, _ *protocol.SemanticTokensDeltaParams) (any, error) {
	return nil, notFound("textDocument/semanticTokens/full/delta")
}

// SemanticTokensRange answers textDocument/semanticTokens/range with MethodNotFound.
func (unimplemented) SemanticTokensRange(_ context.Context, _ *protocol.SemanticTokensRangeParams) (*protocol.SemanticTokens, error) {
	return nil, notFound("textDocument/semanticTokens/range")
}

// SemanticTokensRefresh answers workspace/semanticTokens/refresh with MethodNotFound.
func (unimplemented) SemanticTokensRefresh(_ context.Context) error {
	return notFound("workspace/semanticTokens/refresh")
}

// LinkedEditingRange answers textDocument/linkedEditingRange with MethodNotFound.
func (unimplemented) LinkedEditingRange(_ context.Context, _ *protocol.LinkedEditingRangeParams) (*protocol.LinkedEditingRanges, error) {
	return nil, notFound("textDocument/linkedEditingRange")
}

// Moniker answers textDocument/moniker with MethodNotFound.
func (unimplemented) Moniker(_ context.Context, _ *protocol.MonikerParams) ([]protocol.Moniker, error) {
	return nil, notFound("textDocument/moniker")
}

// Request answers MethodNotFound for a method the protocol package does not
// know.
func (unimplemented) Request(_ context.Context, method string, _ any) (any, error) {
	return nil, notFound(method)
}
