// Package schema is the compiler of the gram agent language: it gives meaning
// to the patterns of a parsed gram file labelled Agent, Tool and Record, and
// turns tool signatures into JSON Schema.
//
// # Entry points
//
//   - [Compile] turns a [parser.Document] into a [Program] (its agents, tools,
//     records and tests) and the agent-level diagnostics. It always returns a
//     program, partial when the file has errors. [CompileWith] also resolves
//     the names a file's tests use in other programs.
//   - [ValidateJSON] checks one value against a type (the JSON answers of
//     tests).
//   - [Merge] combines the parser's diagnostics with the compiler's in one
//     sorted list; the parser's errors that the compiler restates in its own
//     terms are the compiler's to report (see [parser.Document.Deferred]).
//   - [Emit], [OpenAITool], [MCPTool], [JSONSchema] and [ParametersSchema]
//     write a tool's signature as JSON Schema draft 2020-12, in the shapes the
//     OpenAI chat completions API, the Model Context Protocol and plain JSON
//     Schema tools expect. Output is an [Object], a JSON object that keeps its
//     members in order, so the same file always gives the same bytes.
//   - [Targets] state, as data, what each provider's API accepts of JSON
//     Schema (OpenAI, its strict mode, Anthropic, Gemini, MCP, plain
//     2020-12), each rule with its source. [EmitTargetReports] writes a tools
//     array in a target's exact wire shape, rewriting without loss what
//     can be, and [CheckTarget] reports, at the construct that causes it,
//     what a target cannot express (errors) or loses (warnings).
//   - [ValidateArgs] checks the arguments a model sends for a tool call
//     against the tool's schema, applying defaults first; [InjectArgs] adds
//     the host-supplied (injected) parameters.
//
// # The language
//
// An agent is a top-level group `[name:Agent {properties} | tools]`; a tool is
// `[name:Tool {description: "..."} | signature]`, at the top level (and then
// shared by reference) or inline in an agent; a record is
// `[Name:Record {description: "..."} | (field::Type {props}), ...]`. A
// signature is a curried path `(p1::T1)==>(p2::T2)==>(::R)`: every node but
// the last is a parameter, the last is the return type. Patterns with other
// labels are plain gram and are left alone.
//
// The older notation of tools is read with the canonical meaning: the label
// ToolSpecification is Tool, (::Text {paramName: "name"}) is (name::Text),
// and an Object parameter with `fields: [{name: "n", type: "T"}, ...]` has a
// record type whose fields are those (a type `Maybe T` is optional, `[T]`
// an Array of T). Each use gets an information diagnostic ([LegacyCodes])
// whose fix rewrites it canonically.
//
// A test is a top-level group `[name:Test {agent: a, trajectory: inOrder} |
// (:User {says: "..."}), expectations...]` whose expectations are
// `(:Call {tool: t, args: {...}})` (or argsInclude, or argument matcher nodes
// in a group), `(:NoCall {tool: t})`, `(:Answer {contains: "..."})` and
// `(:Rubric {judge: j, criterion: "..."})`, beside the decisions on calls of
// approval tools, `(:Decision {tool: t, approve: true})` ([DecisionScript]);
// [CompileWith] compiles a test file
// with the program of the agent file it tests. Tests are checked against the
// agent's tools and their schemas; package agenttest runs them.
//
// Every element of a [Program] keeps the byte span it came from, so editors
// can hover and jump on them. Diagnostics use the codes listed in [Codes].
package schema
