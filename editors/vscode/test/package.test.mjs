// Checks the packaged extension: the .vsix (a zip file) must hold the manifest,
// the grammar, the language configuration and the bundled client, and nothing
// from the sources or node_modules.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { inflateRawSync } from "node:zlib";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** Lists the names in a zip file from its central directory. */
function zipEntries(buf) {
  return zipDirectory(buf).map((e) => e.name);
}

/** Returns the content of one entry of a zip file (stored or deflated). */
function zipRead(buf, name) {
  const e = zipDirectory(buf).find((x) => x.name === name);
  assert.ok(e, `${name} not in the zip`);
  assert.equal(buf.readUInt32LE(e.offset), 0x04034b50, "bad local header");
  const start = e.offset + 30 + buf.readUInt16LE(e.offset + 26) + buf.readUInt16LE(e.offset + 28);
  const data = buf.subarray(start, start + e.size);
  return e.method === 8 ? inflateRawSync(data) : data;
}

/** Reads a zip file's central directory: name, method, compressed size and offset of each entry. */
function zipDirectory(buf) {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  assert.notEqual(eocd, -1, "not a zip file: no end of central directory");
  const count = buf.readUInt16LE(eocd + 10);
  let off = buf.readUInt32LE(eocd + 16);
  const entries = [];
  for (let n = 0; n < count; n++) {
    assert.equal(buf.readUInt32LE(off), 0x02014b50, "bad central directory entry");
    const nameLen = buf.readUInt16LE(off + 28);
    const extraLen = buf.readUInt16LE(off + 30);
    const commentLen = buf.readUInt16LE(off + 32);
    entries.push({
      name: buf.toString("utf8", off + 46, off + 46 + nameLen),
      method: buf.readUInt16LE(off + 10),
      size: buf.readUInt32LE(off + 20),
      offset: buf.readUInt32LE(off + 42),
    });
    off += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

test("the vsix holds the grammar, the language configuration and the bundle", () => {
  const vsix = join(root, `gram-${pkg.version}.vsix`);
  const names = zipEntries(readFileSync(vsix));
  for (const want of [
    "extension.vsixmanifest",
    "extension/package.json",
    "extension/syntaxes/gram.tmLanguage.json",
    "extension/language-configuration.json",
    "extension/dist/extension.js",
  ]) {
    assert.ok(names.includes(want), `${want} missing from ${vsix}: ${names.join(", ")}`);
  }
  const grammar = JSON.parse(zipRead(readFileSync(vsix), "extension/syntaxes/gram.tmLanguage.json").toString("utf8"));
  assert.equal(grammar.scopeName, "source.gram");
  for (const name of names) {
    assert.ok(!name.includes("node_modules/"), `${name} should not be packaged`);
    assert.ok(!name.startsWith("extension/src/"), `${name} should not be packaged`);
    assert.ok(!name.startsWith("extension/test/"), `${name} should not be packaged`);
  }
});

test("the manifest contributes the gram language, grammar, settings and commands", () => {
  const c = pkg.contributes;
  assert.equal(c.languages[0].id, "gram");
  assert.deepEqual(c.languages[0].extensions, [".gram"]);
  assert.equal(c.grammars[0].scopeName, "source.gram");
  assert.equal(c.configuration.properties["gram.server.path"].default, "gram-lsp");
  assert.ok(c.configuration.properties["gram.server.args"]);
  assert.ok(c.configuration.properties["gram.trace.server"]);
  const commands = c.commands.map((x) => x.command);
  assert.ok(commands.includes("gram.restartServer"));
  assert.ok(commands.includes("gram.showToolSchema"));
});

const platformVsix = join(root, "gram-linux-x64.vsix");
test("the linux-x64 package bundles gram-lsp", { skip: !existsSync(platformVsix) && "run make vsix first" }, () => {
  const buf = readFileSync(platformVsix);
  const names = zipEntries(buf);
  assert.ok(names.includes("extension/bin/gram-lsp"), `bin/gram-lsp missing: ${names.join(", ")}`);
  assert.ok(names.includes("extension/dist/extension.js"));
  assert.match(zipRead(buf, "extension.vsixmanifest").toString("utf8"), /TargetPlatform="linux-x64"/);
});
