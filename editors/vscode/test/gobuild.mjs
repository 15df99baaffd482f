// Builds one of the repository's commands for the tests, unless an environment
// variable already names a build of it.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const repo = join(import.meta.dirname, "..", "..", "..");

/** Returns the path of cmd/<name> built with go build, or the value of envVar when set. */
export function goBuild(name, envVar) {
  if (process.env[envVar]) {
    return process.env[envVar];
  }
  const out = join(mkdtempSync(join(tmpdir(), `${name}-`)), name);
  execFileSync("go", ["build", "-o", out, `./cmd/${name}`], { cwd: repo, stdio: "inherit" });
  return out;
}
