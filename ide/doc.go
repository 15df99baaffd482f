// Package ide answers what an editor asks about one gram text, with no
// protocol around it: what is under the cursor, what a name refers to,
// what hover says of it and what may be typed there. It is the one
// implementation of these questions: the browser playground
// (playground/api) and the language server (package lsp) are built on it,
// the language server adding the protocol (positions, URIs, protocol
// types) and the knowledge of the package the text belongs to.
//
// # Entry points
//
// An [Analysis] is a text parsed and compiled. [Analyze] makes one of a
// text alone: it asks the front door, package project, to check it as
// `gramc check -` checks standard input ([project.CheckText]). [Check]
// makes one as a [project.Request] asks: with the other files of its
// package ([Analysis.Others]), from the analysis of the version before,
// whose check and name tables the new version takes; a panic in the
// toolchain becomes a diagnostic. [NewAnalysis] makes the analysis of a
// text its caller parsed and compiled.
//
// On an analysis, [Analysis.Hover] describes the thing at a byte offset
// in Markdown, [Analysis.Definition] says where the name there is defined
// (in the text or in another member file), and [Analysis.Complete] lists
// what may be typed there ([Analysis.ResolveTool] fills in a tool that a
// long list leaves bare); [Analysis.References] lists every place the name
// is written and [Analysis.Rename] the edits that rename it, in every
// member file for a name of the package ([Analysis.PrepareRename] says
// what would be renamed, a [RenameError] why nothing can be). Their
// offsets and the spans they return are byte offsets of the text; converting them to a client's positions is
// the caller's business (see [diag.File]).
//
// Below them, [Analysis.Index] is the index of the text's identities
// (every definition and reference, and the declarations of the agent
// language, made one top-level unit at a time) and [Analysis.Locate] the
// token of the syntax under the cursor, which a [SyntaxWalker] visits in
// order; the language server's highlights, outline and semantic tokens
// read them. They take and give positions (see
// [diag.Positions]), which are byte offsets in a text parsed whole.
//
// The documentation shown for labels, types, property keys and models is
// given by [LabelDoc], [TypeDoc], [PropertyDoc] and [ModelDoc]; for
// declarations by [AgentDoc], [ToolDoc], [ParamDoc] and [RecordDoc]; for
// agents composed (an agent as another's tool, a Handoff) by
// [AgentToolDoc]. [Kind] is what an identity names.
//
// [ContextAt] reads what may be typed at a cursor from the tokens before
// it; [KeyCompletions], [ModelCompletions] and [SnippetCompletions] list
// what is offered there.
package ide
