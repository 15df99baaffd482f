// An MCP host's side of `gramc mcp serve`, written with the official
// TypeScript SDK client: it starts the server given on the command line
// over stdio, initializes the session, lists the tools, calls the first
// tool with a valid message and with {"message": 42}, and prints what it
// got as one JSON object on standard output:
//
//   {"server": {...}, "tools": [...], "valid": {...}, "invalid": {...}}
//
// Usage: node serve-client.mjs COMMAND [ARG...]
// The message sent is $MESSAGE, or "Hello".
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node serve-client.mjs COMMAND [ARG...]");
  process.exit(2);
}

const transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: "inherit" });
const client = new Client({ name: "gram-interop-client", version: "1.0.0" });

// outcome returns a call's result, or the error it was refused with.
async function outcome(call) {
  try {
    return await call();
  } catch (err) {
    return { thrown: String(err && err.message ? err.message : err), code: err && err.code };
  }
}

try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const name = tools.length > 0 ? tools[0].name : "";
  const valid = await outcome(() => client.callTool({ name, arguments: { message: process.env.MESSAGE || "Hello" } }));
  const invalid = await outcome(() => client.callTool({ name, arguments: { message: 42 } }));
  process.stdout.write(
    JSON.stringify({ server: client.getServerVersion(), capabilities: client.getServerCapabilities(), tools, valid, invalid }) + "\n",
  );
} finally {
  await client.close();
}
