// The snippets, expanded with their default choices, make a file that
// `gramc check` accepts without errors: what a user gets by tabbing through
// them is valid gram. gramc is built from cmd/gramc, or taken from GRAMC.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { goBuild } from "./gobuild.mjs";

const root = join(import.meta.dirname, "..");
const snippets = JSON.parse(readFileSync(join(root, "snippets", "gram.code-snippets"), "utf8"));

/** Expands a snippet body: each placeholder or choice becomes its default, tab stops vanish. */
export function expand(body) {
  let text = body.join("\n");
  // Innermost first, so nested placeholders expand too.
  for (let prev = ""; prev !== text; ) {
    prev = text;
    text = text.replace(/\$\{\d+:([^${}]*)\}/g, "$1").replace(/\$\{\d+\|([^,|]*)[^|]*\|\}/g, "$1");
  }
  return text.replace(/\$\{?\d+\}?/g, "");
}

test("expanding placeholders and choices", () => {
  assert.equal(expand(["[${1:a}:${2|X,Y|} ${3:x ${4:k}}]$0", "  ${5}"]), "[a:X x k]\n  ");
});

test("the snippets expand to gram that checks without errors", () => {
  const order = ["Tool", "Agent", "Record", "Signature"];
  assert.deepEqual(Object.keys(snippets).sort(), [...order].sort());
  const text = '{kind: "agents"}\n\n' + order.map((name) => expand(snippets[name].body)).join("\n") + "\n";
  assert.doesNotMatch(text, /\$\{?\d/, "a placeholder was left unexpanded");
  const r = spawnSync(goBuild("gramc", "GRAMC"), ["check", "--format", "json", "-"], { input: text, encoding: "utf8" });
  const report = JSON.parse(r.stdout);
  const errors = report.files.flatMap((f) => f.diagnostics).filter((d) => d.severity === "error");
  assert.deepEqual(errors, [], `the expanded snippets:\n${text}`);
  assert.equal(r.status, 0, `gramc check failed:\n${r.stdout}\n${r.stderr}\n${text}`);
});
