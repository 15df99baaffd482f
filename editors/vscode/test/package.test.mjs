// Checks the packaged extensions (a .vsix is a zip file): both packages hold the
// manifest, the grammars, the language configuration, the snippets, the icon,
// the licence, the changelog and the bundled client, and nothing from the
// sources, the tests or node_modules; only the linux-x64 package holds the
// server. Also checks what the manifest contributes.
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
      mode: buf.readUInt32LE(off + 38) >>> 16,
      offset: buf.readUInt32LE(off + 42),
    });
    off += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** The files every package must hold, under extension/. */
const common = [
  "extension.vsixmanifest",
  "extension/package.json",
  "extension/readme.md",
  "extension/changelog.md",
  "extension/LICENSE.txt",
  "extension/images/icon.png",
  "extension/syntaxes/gram.tmLanguage.json",
  "extension/syntaxes/gram.markdown.tmLanguage.json",
  "extension/snippets/gram.code-snippets",
  "extension/language-configuration.json",
  "extension/dist/extension.js",
];

/** Checks what every package must and must not hold; returns its entries. */
function checkCommon(vsix) {
  const buf = readFileSync(vsix);
  const names = zipEntries(buf);
  for (const want of common) {
    assert.ok(names.includes(want), `${want} missing from ${vsix}: ${names.join(", ")}`);
  }
  const grammar = JSON.parse(zipRead(buf, "extension/syntaxes/gram.tmLanguage.json").toString("utf8"));
  assert.equal(grammar.scopeName, "source.gram");
  const injection = JSON.parse(zipRead(buf, "extension/syntaxes/gram.markdown.tmLanguage.json").toString("utf8"));
  assert.equal(injection.injectionSelector, "L:text.html.markdown");
  assert.match(zipRead(buf, "extension/LICENSE.txt").toString("utf8"), /MIT License[\s\S]*The gram authors/);
  const icon = zipRead(buf, "extension/images/icon.png");
  assert.equal(icon.subarray(1, 4).toString("latin1"), "PNG", "the icon is a PNG");
  assert.ok(icon.readUInt32BE(16) >= 128 && icon.readUInt32BE(20) >= 128, "the icon is at least 128x128");
  const manifest = zipRead(buf, "extension.vsixmanifest").toString("utf8");
  assert.match(manifest, /https:\/\/github\.com\/gramlang\/gram/, "the manifest links the repository");
  assert.match(manifest, /Microsoft\.VisualStudio\.Services\.Icons\.Default/, "the manifest names the icon");
  for (const name of names) {
    assert.ok(!name.includes("node_modules/"), `${name} should not be packaged`);
    for (const dir of ["src/", "test/", "scripts/", "build/", "dist/test/"]) {
      assert.ok(!name.startsWith("extension/" + dir), `${name} should not be packaged`);
    }
  }
  return { buf, names };
}

test("the platform-neutral package holds everything but a server", () => {
  const { names } = checkCommon(join(root, `gram-${pkg.version}.vsix`));
  const bin = names.filter((n) => n.startsWith("extension/bin/"));
  assert.deepEqual(bin, [], "the platform-neutral package must not carry a server");
});

test("the manifest contributes the gram language, grammars, snippets, settings and commands", () => {
  const c = pkg.contributes;
  assert.equal(c.languages[0].id, "gram");
  assert.deepEqual(c.languages[0].extensions, [".gram"]);
  assert.equal(c.grammars[0].scopeName, "source.gram");
  const injection = c.grammars.find((g) => g.scopeName === "markdown.gram.codeblock");
  assert.deepEqual(injection?.injectTo, ["text.html.markdown"]);
  assert.equal(injection.embeddedLanguages["meta.embedded.block.gram"], "gram");
  assert.equal(c.configuration.properties["gram.server.path"].default, "gram-lsp");
  assert.ok(c.configuration.properties["gram.server.args"]);
  assert.ok(c.configuration.properties["gram.trace.server"]);
  const commands = c.commands.map((x) => x.command);
  for (const want of ["gram.restartServer", "gram.showToolSchema", "gram.showOutput"]) {
    assert.ok(commands.includes(want), want);
  }
  const context = c.menus["editor/context"].find((m) => m.command === "gram.showToolSchema");
  assert.match(context?.when ?? "", /editorLangId == gram && gram\.onToolOrAgent/);
  const snippets = JSON.parse(readFileSync(join(root, c.snippets[0].path), "utf8"));
  assert.equal(c.snippets[0].language, "gram");
  assert.deepEqual(Object.values(snippets).map((s) => s.prefix).sort(), ["agent", "record", "signature", "tool"]);
});

test("an untrusted workspace may not choose the server", () => {
  const trust = pkg.capabilities.untrustedWorkspaces;
  assert.equal(trust.supported, "limited");
  assert.deepEqual([...trust.restrictedConfigurations].sort(), ["gram.server.args", "gram.server.path"]);
});

test("the package is published with a licence, a repository and no skipped checks", () => {
  assert.equal(pkg.license, "MIT");
  assert.equal(pkg.repository.url, "https://github.com/gramlang/gram");
  assert.equal(pkg.icon, "images/icon.png");
  assert.doesNotMatch(pkg.scripts.package, /--skip-license|--allow-missing-repository/);
  const make = readFileSync(join(root, "..", "..", "Makefile"), "utf8");
  assert.doesNotMatch(make, /--skip-license|--allow-missing-repository/);
});

const platformVsix = join(root, "gram-linux-x64.vsix");
test("the linux-x64 package bundles gram-lsp", { skip: !existsSync(platformVsix) && "run make vsix first" }, () => {
  const { buf, names } = checkCommon(platformVsix);
  const server = zipDirectory(buf).find((e) => e.name === "extension/bin/gram-lsp");
  assert.ok(server, `bin/gram-lsp missing: ${names.join(", ")}`);
  assert.equal(zipRead(buf, "extension/bin/gram-lsp").subarray(0, 4).toString("latin1"), "\x7fELF", "the server is a Linux program");
  assert.deepEqual(names.filter((n) => n.startsWith("extension/bin/")), ["extension/bin/gram-lsp"]);
  assert.match(zipRead(buf, "extension.vsixmanifest").toString("utf8"), /TargetPlatform="linux-x64"/);
});
