// Package mcpimport writes gram declarations for the tools of an MCP
// server, the code generator behind `gramc mcp import`.
//
// # Entry points
//
//   - [Import] turns MCP tools (as [github.com/gramlang/gram/runtime/mcp.Client.Tools] lists them) into a
//     gram file ([Result]): a Tool per tool with its parameters in the
//     server's order, a Record per object with properties, the return type
//     from the outputSchema, and an agent listing the tools when
//     [Options.Agent] is set. What gram cannot write is approximated and
//     reported as a [Warning], once on the result and once as a comment
//     above the tool.
//
// The file Import returns is formatted (package format), parses and
// compiles, and each declaration has been checked against its server's
// inputSchema by the runtime's binding rule ([runtime.CheckBinding]); a
// generated file that does not compile is reported as a [*CompileError].
package mcpimport
