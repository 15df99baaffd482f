// Fails when a grammar fixture has no committed snapshot, or a snapshot has
// no fixture: vscode-tmgrammar-snap writes a missing snapshot instead of
// comparing, so in a fresh clone (as in CI) a fixture without one would
// test nothing. `npm run test:grammar:update` writes the snapshots; review
// and commit them.
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

const root = join(import.meta.dirname, "..");
const dirs = [
  ["test/testdata/fixtures", ".gram"],
  ["test/testdata/fixtures/examples", ".gram"],
  ["test/testdata/fixtures/markdown", ".md"],
];
const problems = [];
for (const [dir, ext] of dirs) {
  const abs = join(root, dir);
  for (const name of readdirSync(abs)) {
    const path = join(abs, name);
    if (name.endsWith(ext) && !existsSync(path + ".snap")) {
      problems.push(`${relative(root, path)}: no snapshot (${relative(root, path)}.snap)`);
    }
    if (name.endsWith(ext + ".snap") && !existsSync(path.slice(0, -".snap".length))) {
      problems.push(`${relative(root, path)}: a snapshot of no fixture; remove it`);
    }
  }
}
if (problems.length > 0) {
  console.error(problems.join("\n"));
  console.error(
    "run `npm run test:grammar:update` in editors/vscode to write the missing snapshots, review them, and commit them",
  );
  process.exit(1);
}
