// Unit tests of src/server.ts (bundled to dist/test/server.mjs by
// `npm run build:unit`): workspace trust, the choice of the server program and
// the missing-server message.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  missingServerMessage,
  onToolOrAgent,
  resolveServer,
  serverSettings,
} from "../dist/test/server.mjs";

/** An inspect function over fixed values, as WorkspaceConfiguration.inspect answers. */
function inspector(values) {
  return (key) => ({ defaultValue: key === "server.path" ? "gram-lsp" : [], ...(values[key] ?? {}) });
}

const evil = {
  "server.path": { workspaceValue: "./tools/evil-lsp" },
  "server.args": { workspaceValue: ["--pwn"] },
};

test("a trusted workspace's server path and args are used", () => {
  const s = serverSettings(inspector(evil), true);
  assert.deepEqual(s, { path: "./tools/evil-lsp", args: ["--pwn"], ignored: [] });
});

test("an untrusted workspace's server path and args are ignored", () => {
  const s = serverSettings(inspector(evil), false);
  assert.deepEqual(s, { path: "gram-lsp", args: [], ignored: ["gram.server.path", "gram.server.args"] });
});

test("an untrusted workspace keeps the user's own settings", () => {
  const s = serverSettings(
    inspector({
      "server.path": { globalValue: "/opt/gram/gram-lsp", workspaceFolderValue: "/tmp/x" },
      "server.args": { globalValue: ["--log", "/tmp/l"] },
    }),
    false,
  );
  assert.deepEqual(s, { path: "/opt/gram/gram-lsp", args: ["--log", "/tmp/l"], ignored: ["gram.server.path"] });
});

test("a folder value wins over the workspace's and the user's when trusted", () => {
  const s = serverSettings(
    inspector({ "server.path": { globalValue: "/a", workspaceValue: "/b", workspaceFolderValue: "/c" } }),
    true,
  );
  assert.equal(s.path, "/c");
});

test("a blank or malformed setting means the default", () => {
  const s = serverSettings(inspector({ "server.path": { globalValue: "  " }, "server.args": { globalValue: [1, "x"] } }), true);
  assert.deepEqual(s, { path: "gram-lsp", args: ["x"], ignored: [] });
});

/** An extension folder with a bundled bin/gram-lsp that lost its executable bit. */
function extensionWithServer() {
  const dir = mkdtempSync(join(tmpdir(), "gram-ext-"));
  mkdirSync(join(dir, "bin"));
  writeFileSync(join(dir, "bin", "gram-lsp"), "#!/bin/sh\n");
  chmodSync(join(dir, "bin", "gram-lsp"), 0o644);
  return dir;
}

/** A PATH folder holding an executable gram-lsp. */
function pathWithServer() {
  const dir = mkdtempSync(join(tmpdir(), "gram-path-"));
  writeFileSync(join(dir, "gram-lsp"), "#!/bin/sh\n");
  chmodSync(join(dir, "gram-lsp"), 0o755);
  return dir;
}

const linux = (pathEnv) => ({ pathEnv, platform: "linux" });

test("the default falls back to the bundled server, made executable", () => {
  const ext = extensionWithServer();
  const r = resolveServer(serverSettings(inspector({}), true), ext, linux("/nonexistent"));
  assert.deepEqual(r, { command: join(ext, "bin", "gram-lsp"), args: [], found: true, source: "bundled" });
  assert.ok(statSync(r.command).mode & 0o100, "the bundled server is executable");
});

test("gram-lsp on the PATH comes before the bundled one", () => {
  const ext = extensionWithServer();
  const dir = pathWithServer();
  const r = resolveServer(serverSettings(inspector({}), true), ext, linux(`/nonexistent:${dir}`));
  assert.equal(r.command, join(dir, "gram-lsp"));
  assert.equal(r.source, "path");
});

test("in an untrusted workspace a workspace path does not run: the bundled server does", () => {
  const ext = extensionWithServer();
  const r = resolveServer(serverSettings(inspector(evil), false), ext, linux("/nonexistent"));
  assert.equal(r.command, join(ext, "bin", "gram-lsp"));
  assert.deepEqual(r.args, []);
});

test("an explicit path that does not exist is reported, not replaced", () => {
  const ext = extensionWithServer();
  const r = resolveServer(serverSettings(inspector({ "server.path": { globalValue: "/no/such/gram-lsp" } }), true), ext, linux(""));
  assert.deepEqual(r, { command: "/no/such/gram-lsp", args: [], found: false, source: "none" });
});

test("with no server anywhere, nothing is found", () => {
  const ext = mkdtempSync(join(tmpdir(), "gram-ext-"));
  const r = resolveServer(serverSettings(inspector({}), true), ext, linux("/nonexistent"));
  assert.equal(r.found, false);
  assert.equal(r.command, "gram-lsp");
});

test("the missing-server message says how to install the server", () => {
  const m = missingServerMessage("gram-lsp");
  assert.match(m, /"gram-lsp" was not found/);
  assert.match(m, /go install github\.com\/gramlang\/gram\/cmd\/gram-lsp@latest/);
  assert.match(m, /gram\.server\.path/);
});

test("the context menu entry shows on agents and tools only", () => {
  const r = (l1, c1, l2, c2) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });
  const outline = [
    { kind: 4, range: r(10, 0, 20, 1), children: [{ kind: 11, range: r(12, 2, 12, 8) }] }, // agent, tool reference
    { kind: 11, range: r(0, 0, 3, 1), children: [{ kind: 12, range: r(1, 2, 1, 20) }] }, // tool, parameter
    { kind: 22, range: r(5, 0, 8, 1), children: [] }, // record
    { kind: 12, range: r(30, 0, 30, 9) }, // a plain node
  ];
  assert.equal(onToolOrAgent(outline, { line: 12, character: 4 }), true);
  assert.equal(onToolOrAgent(outline, { line: 15, character: 0 }), true);
  assert.equal(onToolOrAgent(outline, { line: 1, character: 5 }), true);
  assert.equal(onToolOrAgent(outline, { line: 6, character: 0 }), false);
  assert.equal(onToolOrAgent(outline, { line: 30, character: 3 }), false);
  assert.equal(onToolOrAgent(outline, { line: 25, character: 0 }), false);
});
