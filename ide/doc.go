// Package ide answers what an editor asks about one gram text, with no
// protocol around it: the diagnostics with their quick fixes, hover and
// completion. The browser playground (playground/api) is built on it. The
// language server (package lsp) takes from it the texts it shows and the
// context of a completion, so the two say the same; lsp's tests check that
// they find the same things under the cursor.
//
// # Entry points
//
// [Analyze] parses and compiles a text exactly as `gramc check` does and
// returns an [Analysis]. On it, [Analysis.Hover] describes the thing at a
// byte offset in Markdown and [Analysis.Complete] lists what may be typed
// there. Offsets are byte offsets into the text; converting them to a
// client's positions is the caller's business (see [diag.File]).
//
// The documentation shown for labels, types, property keys and models is
// given by [LabelDoc], [TypeDoc], [PropertyDoc] and [ModelDoc]; for
// declarations by [AgentDoc], [ToolDoc], [ParamDoc] and [RecordDoc]; for the
// patterns of plain gram by [PatternDoc]. [Kind] is what an identity names.
//
// [ContextAt] reads what may be typed at a cursor from the tokens before
// it; [KeyCompletions], [TypeCompletions], [RecordCompletion],
// [ModelCompletions] and [SnippetCompletions] list what is offered there.
package ide
