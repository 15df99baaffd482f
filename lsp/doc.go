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
// The protocol types and the standard request dispatch come from
// go.lsp.dev/protocol, the framing and JSON-RPC from go.lsp.dev/jsonrpc2.
// Around them, server.go reads every message in order on one goroutine:
// notifications (open, change, close, save) are applied there, in order, and
// only record a new immutable [snapshot] of the document; each request takes
// the snapshots as they are when it arrives and runs on its own goroutine, so
// a slow request never holds up the next message, and $/cancelRequest can stop
// it. A panic in a handler is recovered, logged and answered with an error;
// the server keeps serving. Unknown methods get MethodNotFound; the LSP 3.17
// methods the protocol package predates (inlay hints, selection ranges) are
// routed before its dispatcher.
//
// A snapshot is analysed at most once, on first use ([snapshot.Analysis]):
// parse (parser.Parse, or parser.Reparse from the last analysed version,
// which re-parses only the top-level units around the change, keeps the
// lowering of those before it, and moves and lowers again those after it),
// compile (schema.Compile, or schema.Recompile from the last analysed
// version's program, which compiles again only the tool or agent the change
// is in when it can), merge the diagnostics (schema.Merge: exactly what
// `gramc check` reports), and, lazily, an index of every identity occurrence for
// navigation and sorted name tables for completion. A change that leaves
// the text as it was shares the previous analysis. Diagnostics are computed
// off the request path by one worker per document that always takes the
// newest version: edits that arrive while a version is being analysed
// replace it, and its analysis stops at the next stage (a superseded result
// is never published). Every publication carries the version it was
// computed for; once it is out, the worker builds the index while the
// document rests, and gives it up when a newer version arrives meanwhile.
//
// Analysing a new version never holds up hover and definition: until the
// new version is analysed and indexed, they answer from the last version
// that is (an analysed version whose index was given up is passed over for
// the indexed one before it), mapping positions through the changed span (and saying nothing
// about the changed part itself). Completion reads the context at the
// cursor from the text being typed and takes the names of the newest
// analysed version, indexed or not (see completion_stale.go).
//
// The features live one per file: hover.go, definition.go, references.go,
// completion.go (with cursor.go, the context of the cursor), symbols.go, folding.go, selection.go, rename.go, format.go,
// codeaction.go (with the "show tool schema" command), semantic.go,
// inlay.go, tests.go (agent tests: a NAME_test.gram document compiled with
// NAME.gram, tests in the outline, a code lens and command that run one) and
// targets.go (the providers the client chooses, whose target diagnostics
// and quick fixes join the document's).
package lsp
