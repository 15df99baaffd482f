// Package lsp is gram-lsp, the language server of the gram toolchain: it
// speaks the Language Server Protocol (3.17, UTF-16 positions) to an editor
// over any byte stream, and presents what the parser and the compiler find in
// `.gram` agent files.
//
// # Entry points
//
// [Serve] runs a server on a connection (standard input and output for the
// gram-lsp command) until the client says exit or goes away. [Options] sets
// the version reported to the client and where the log goes.
//
// # How it is built
//
// The protocol types come from go.lsp.dev/protocol, JSON-RPC from
// go.lsp.dev/jsonrpc2. Around them, server.go reads every message in order on one goroutine:
// notifications (open, change, close, save) are applied there, in order, and
// only record a new immutable [snapshot] of the document; each request takes
// the snapshots as they are when it arrives and runs on its own goroutine, so
// a slow request never holds up the next message, and $/cancelRequest can stop
// it. A panic in a handler is recovered, logged and answered with an error;
// the server keeps serving. Each method the server handles has a route,
// which decodes its parameters (those of the LSP 3.17 methods the protocol
// package predates, inlay hints and selection ranges, into types of its
// own); unknown methods get MethodNotFound.
//
// A snapshot is analysed at most once, on first use ([snapshot.Analysis]):
// the front door, package project, checks it ([project.Check], what `gramc
// check` goes through too) from the last analysed version, with the edit
// the client sent and the rest of its package: it re-parses only the
// top-level units around the change, keeping the syntax and lowering of the
// others by pointer (parser.Reparse), compiles again only the declarations
// and files the edit reached (schema.Recompile, project.Recompile), and
// merges the diagnostics; the server adds, lazily, the index of identity
// occurrences and the sorted name tables for completion of package ide, the
// index made a unit at a time as requests ask, the tables taken from the
// version before when its names are the same. A change that leaves the text as it was shares the
// previous analysis. Diagnostics are computed off the request path by one
// worker per document that always takes the newest version: edits that arrive
// while a version is being analysed replace it, and its analysis stops at the
// next stage (a superseded result is never published). Every publication
// carries the version it was computed for.
//
// Every request answers from the version it arrived with: versions are
// immutable, and its spans are that version's positions, which the
// conversions of position.go turn into the client's lines and columns (a
// version shares most of its syntax and program with the one before, so
// analysing it costs about what the edit touched, see docs/architecture.md).
//
// The features live one per file: hover.go, definition.go, references.go,
// completion.go (with resolve.go), symbols.go, folding.go, selection.go,
// rename.go, format.go, codeaction.go (with the "show tool schema" command),
// semantic.go, inlay.go, package.go (a document compiled with the other files
// of its package, open buffers over files on disk), bindingsfile.go (a
// bindings file checked by its rules, checked again when the mcp.json it
// names changes), tests.go (agent tests: a NAME_test.gram document compiled
// with NAME.gram, tests in the outline, a code lens and command that run one,
// bound by the project's bindings file as `gramc test` binds it) and
// targets.go (the providers the client chooses, whose target diagnostics and
// quick fixes join the document's).
//
// What is under the cursor, what a name refers to, what hover says of it
// and what may be typed there are package ide's, which the browser
// playground is built on: the analysis of a document is an ide.Analysis,
// with the other member files of its package (ide.Analysis.Others), and hover,
// definition, completion, references and rename (across the files of a
// package) here turn the client's positions into its byte offsets and its
// answers into protocol types. Highlights, symbols, code actions and
// semantic tokens read its index of identities (ide.Index) and its walk
// over the syntax.
package lsp
