// End-to-end test of the client stack: starts gram-lsp over stdio with
// vscode-languageserver-protocol (the library VS Code's client is built on),
// opens a document, and checks diagnostics, hover, completion and formatting.
//
// The server is built from ../../cmd/gram-lsp with `go build`, or taken from
// GRAM_LSP when that is set.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-languageserver-protocol/node";
import { goBuild } from "./gobuild.mjs";

const repo = join(import.meta.dirname, "..", "..", "..");
let server;
let conn;
const diagnostics = new Map();
const waiters = [];


/** Resolves with the first diagnostics published for uri that satisfy ok. */
function diagnosticsFor(uri, ok) {
  const have = diagnostics.get(uri);
  if (have && ok(have)) {
    return Promise.resolve(have);
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no diagnostics for ${uri} in time`)), 10000);
    waiters.push({ uri, ok, resolve: (d) => (clearTimeout(timer), resolve(d)) });
  });
}

before(async () => {
  server = spawn(goBuild("gram-lsp", "GRAM_LSP"), [], { stdio: ["pipe", "pipe", "inherit"] });
  // The server closes its input when it exits; a late write must not fail the run.
  server.stdin.on("error", () => {});
  conn = createMessageConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin));
  conn.onNotification("textDocument/publishDiagnostics", (p) => {
    diagnostics.set(p.uri, p.diagnostics);
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i];
      if (w.uri === p.uri && w.ok(p.diagnostics)) {
        waiters.splice(i, 1);
        w.resolve(p.diagnostics);
      }
    }
  });
  conn.listen();
  const init = await conn.sendRequest("initialize", {
    processId: process.pid,
    rootUri: pathToFileURL(repo).toString(),
    capabilities: {
      textDocument: {
        hover: { contentFormat: ["markdown", "plaintext"] },
        completion: { completionItem: { snippetSupport: true } },
        publishDiagnostics: { relatedInformation: true },
      },
    },
  });
  assert.ok(init.capabilities.hoverProvider, "the server offers hover");
  assert.ok(init.capabilities.completionProvider, "the server offers completion");
  assert.ok(init.capabilities.documentFormattingProvider, "the server offers formatting");
  conn.sendNotification("initialized", {});
});

after(async () => {
  if (!conn) {
    server?.kill();
    return;
  }
  await conn.sendRequest("shutdown");
  const exited = new Promise((resolve) => server.once("exit", (code) => resolve(code)));
  conn.sendNotification("exit");
  // After shutdown, exit must end the server with status 0 (LSP lifecycle).
  assert.equal(await exited, 0);
  conn.dispose();
});

const uri = "file:///tmp/e2e/agents.gram";
const text = [
  '[lookup:Tool {description: "Finds an order by its id"} |',
  "  (orderId::Integr)==>(::String)",
  "]",
  "",
  '[helper:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} |',
  "  lookup",
  "]",
  "",
].join("\n");

test("opening a document publishes its diagnostics", async () => {
  conn.sendNotification("textDocument/didOpen", {
    textDocument: { uri, languageId: "gram", version: 1, text },
  });
  const diags = await diagnosticsFor(uri, (d) => d.length > 0);
  const unknown = diags.find((d) => d.code === "unknown-type");
  assert.ok(unknown, `an unknown-type diagnostic: ${JSON.stringify(diags)}`);
  assert.deepEqual(unknown.range, { start: { line: 1, character: 12 }, end: { line: 1, character: 18 } });
});

test("hover on a tool reference shows its description", async () => {
  const hover = await conn.sendRequest("textDocument/hover", {
    textDocument: { uri },
    position: { line: 5, character: 4 },
  });
  assert.ok(hover, "a hover");
  const value = typeof hover.contents === "string" ? hover.contents : hover.contents.value;
  assert.match(value, /Finds an order by its id/);
});

test("the tool schema command answers with the tool's JSON Schema", async () => {
  const schema = await conn.sendRequest("workspace/executeCommand", {
    command: "gram.toolSchema",
    arguments: [uri, { line: 0, character: 2 }],
  });
  assert.ok(schema, "a schema for the tool at the cursor");
  const text = JSON.stringify(schema);
  assert.match(text, /orderId/);
});

test("completion after :: offers types", async () => {
  const doc2 = "file:///tmp/e2e/complete.gram";
  const src = '[t:Tool {description: "d"} |\n  (x::)==>(::String)\n]\n';
  conn.sendNotification("textDocument/didOpen", {
    textDocument: { uri: doc2, languageId: "gram", version: 1, text: src },
  });
  const result = await conn.sendRequest("textDocument/completion", {
    textDocument: { uri: doc2 },
    position: { line: 1, character: 6 },
  });
  const items = Array.isArray(result) ? result : result.items;
  const labels = items.map((i) => i.label);
  assert.ok(labels.includes("String"), `String among ${labels.join(", ")}`);
  assert.ok(labels.includes("Integer"), `Integer among ${labels.join(", ")}`);
});

test("formatting returns the canonical text", async () => {
  const doc3 = "file:///tmp/e2e/format.gram";
  const src = "(a   {k:1,j:  'x'})-->( b )\n\n\n[g|a,b]\n";
  conn.sendNotification("textDocument/didOpen", {
    textDocument: { uri: doc3, languageId: "gram", version: 1, text: src },
  });
  const edits = await conn.sendRequest("textDocument/formatting", {
    textDocument: { uri: doc3 },
    options: { tabSize: 2, insertSpaces: true },
  });
  assert.ok(Array.isArray(edits) && edits.length > 0, "formatting edits");
  // Apply the edits (in reverse order of position) and check the result.
  const lines = src.split("\n");
  const offset = (p) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  let out = src;
  for (const e of [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start))) {
    out = out.slice(0, offset(e.range.start)) + e.newText + out.slice(offset(e.range.end));
  }
  assert.equal(out, "(a {k: 1, j: 'x'})-->(b)\n\n[g | a, b]\n");
});
