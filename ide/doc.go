// Package ide answers what an editor asks about one gram text, with no
// protocol around it: the diagnostics with their quick fixes, hover and
// completion. The browser playground (playground/api) is built on it; its
// answers are those of the language server (package lsp) on the same text,
// which lsp's tests check for the documentation both show.
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
// given by [LabelDoc], [TypeDoc], [PropertyDoc] and [ModelDoc].
package ide
