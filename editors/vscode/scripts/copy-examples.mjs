// Copies the repository's examples/*.gram into test/testdata/fixtures/examples
// so the grammar snapshot tests cover them (the copies are not committed; their
// snapshots are).
import { copyFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const from = join(import.meta.dirname, "..", "..", "..", "examples");
const to = join(import.meta.dirname, "..", "test", "testdata", "fixtures", "examples");
for (const name of readdirSync(from)) {
  if (name.endsWith(".gram")) {
    copyFileSync(join(from, name), join(to, name));
  }
}
