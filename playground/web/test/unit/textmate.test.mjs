// The playground's TextMate interpreter (src/textmate.js) against the
// snapshots that vscode-textmate made of the extension's grammar
// (editors/vscode/test/testdata/fixtures/**/*.gram.snap): every character the
// snapshots cover must get the same scopes, except inside ```md strings,
// where the extension's tests run a Markdown stand-in grammar that the
// playground does not have.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { compileGrammar } from "../../src/textmate.js";

const vscode = join(import.meta.dirname, "..", "..", "..", "..", "editors", "vscode");
const grammar = JSON.parse(readFileSync(join(vscode, "syntaxes", "gram.tmLanguage.json"), "utf8"));
const fixtures = join(vscode, "test", "testdata", "fixtures");

function snapshots() {
  const out = [];
  for (const dir of [fixtures, join(fixtures, "examples")]) {
    for (const name of readdirSync(dir)) {
      if (name.endsWith(".gram.snap")) {
        out.push(join(dir, name));
      }
    }
  }
  return out;
}

/** Reads a snapshot: its source lines, each with the expected scopes by column. */
function readSnapshot(file) {
  const lines = [];
  for (const l of readFileSync(file, "utf8").split("\n")) {
    if (l.startsWith(">")) {
      lines.push({ text: l.slice(1), want: new Map() });
    } else if (l.startsWith("#") && lines.length > 0) {
      const m = /^#(\s*)(\^+)\s+(.*)$/.exec(l);
      if (!m) {
        continue;
      }
      const start = m[1].length;
      for (let c = start; c < start + m[2].length; c++) {
        lines[lines.length - 1].want.set(c, m[3].trim());
      }
    }
  }
  return lines;
}

const files = snapshots();

test("there are snapshots to compare with", () => {
  assert.ok(files.length >= 3, `found ${files.length} snapshots in ${fixtures}`);
});

for (const file of files) {
  test(`scopes of ${file.slice(fixtures.length + 1)}`, () => {
    const { initial, tokenizeLine } = compileGrammar(grammar);
    let stack = initial;
    let compared = 0;
    const diffs = [];
    for (const [i, line] of readSnapshot(file).entries()) {
      const r = tokenizeLine(line.text, stack);
      stack = r.stack;
      const got = new Map();
      for (const t of r.tokens) {
        for (let c = t.start; c < t.end; c++) {
          got.set(c, t.scopes.join(" "));
        }
      }
      for (const [c, want] of line.want) {
        // Past the end: vscode-textmate scans each line with its line break.
        if (c >= line.text.length || /markup\.|meta\.embedded\.block\.markdown/.test(want)) {
          continue;
        }
        compared++;
        if (got.get(c) !== want && diffs.length < 10) {
          diffs.push(`line ${i + 1} col ${c + 1} (${JSON.stringify(line.text[c])}): got ${got.get(c)}, want ${want}`);
        }
      }
    }
    assert.ok(compared > 0, "nothing compared");
    assert.deepEqual(diffs, []);
  });
}

test("a line with nothing open ends where it started", () => {
  const { initial, tokenizeLine } = compileGrammar(grammar);
  const r = tokenizeLine("(a)-->(b) // c", initial);
  assert.equal(r.stack, initial);
  assert.equal(r.tokens.at(-1).end, 14);
  const open = tokenizeLine("[a:Agent {", initial);
  assert.notEqual(open.stack, initial, "an open record carries to the next line");
});
