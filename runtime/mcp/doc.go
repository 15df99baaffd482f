// Package mcp connects the runtime to the Model Context Protocol, in both
// directions: MCP servers' tools become tool implementations of a
// [runtime.Library], and a gram file's agents are served as MCP tools.
//
// # Entry points
//
//   - [Connect] starts or reaches an MCP server, as a [Config] says (a
//     command over stdio, in its own process group; a streamable HTTP URL;
//     or any go-sdk transport), and returns a [Client]. [Client.AddTo] and
//     [Client.Library] put its tools in a library, bound to gram
//     declarations like any other implementation (the server's inputSchema
//     is the tool's parameter schema); [Client.Call] calls one and returns a
//     [runtime.ToolResult] that keeps the text, structured and image forms.
//     Failures to start, reach or use a server are [*Error]s; a server
//     that writes something other than JSON-RPC on its standard output
//     gives a [*NotJSONRPCError], one that does not finish a step of the
//     start in time (the handshake, the tool list with all its pages) a
//     [*StartTimeoutError]; a tool list is read up to [MaxToolPages] pages
//     and [MaxTools] tools.
//   - [NewServer] makes an MCP server whose tools are agents
//     ([runtime.Bound]): each takes {"message": string} and answers with the
//     agent's reply, one turn of a new conversation run by [runtime.Run].
//     [Serve] runs it over standard input and output, answering lines that
//     are not JSON-RPC messages with an error instead of ending the session.
//     A call that needs a person's approval (an agent or a tool with
//     approval: true) asks the client through elicitation.
//   - [Config.Elicitor] answers a server's elicitation requests (and
//     declares the capability); [TerminalElicitor] asks a person at a
//     terminal, field by field.
//
// The tool schemas a server lists are read with their key order and local
// references inlined ([runtime.ToolSchema]); package
// github.com/gramlang/gram/mcpimport writes gram declarations for them.
package mcp

// A note for readers of this package's files: they import the go-sdk's
// package github.com/modelcontextprotocol/go-sdk/mcp under its own name, so
// inside this package mcp.X is the SDK's X, and this package's own names
// (Client, Config, Error, ...) are written unqualified.
