// Builds the playground's page into a folder (playground/dist by default),
// beside the gram.wasm and wasm_exec.js that `make playground` puts there
// first: app.js (src/main.js bundled with esbuild, the extension's grammar
// inside), app.css, index.html, boot.js and worker.js (which run gram.wasm
// in a worker, started before app.js loads, fetching it as gram.wasm.gz),
// examples.json (the repository's examples, test files left out) and
// sw.js, the service worker, with the list of files and a cache name made
// of their hash.
//
// Usage: node build.mjs [OUT]
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";

const here = import.meta.dirname;
const out = resolve(process.argv[2] ?? join(here, "..", "dist"));
const examplesDir = join(here, "..", "..", "examples");
mkdirSync(out, { recursive: true });

for (const f of ["gram.wasm", "wasm_exec.js"]) {
  if (!existsSync(join(out, f))) {
    console.error(`playground: ${join(out, f)} is missing: run make playground, which builds it first`);
    process.exit(1);
  }
}

await esbuild.build({
  entryPoints: [join(here, "src", "main.js")],
  bundle: true,
  minify: true,
  format: "esm",
  target: ["chrome111", "firefox113", "safari16.4"],
  outfile: join(out, "app.js"),
  legalComments: "eof",
  logLevel: "warning",
});
await esbuild.build({
  entryPoints: [join(here, "src", "style.css")],
  bundle: true,
  minify: true,
  outfile: join(out, "app.css"),
  logLevel: "warning",
});
copyFileSync(join(here, "index.html"), join(out, "index.html"));
copyFileSync(join(here, "src", "boot.js"), join(out, "boot.js"));
// The worker: Go's loader, then src/worker.js, in one file (one request
// fewer before the module's download starts).
writeFileSync(join(out, "worker.js"), readFileSync(join(out, "wasm_exec.js"), "utf8") + "\n" + readFileSync(join(here, "src", "worker.js"), "utf8"));
// The module as the worker fetches it: gzip -9, inflated in the worker.
writeFileSync(join(out, "gram.wasm.gz"), gzipSync(readFileSync(join(out, "gram.wasm")), { level: 9 }));

// The examples, hello.gram first; NAME_test.gram files are checked with
// NAME.gram, which one editor cannot hold, so they are left out.
const names = readdirSync(examplesDir)
  .filter((n) => n.endsWith(".gram") && !n.endsWith("_test.gram"))
  .sort((a, b) => (a === "hello.gram" ? -1 : b === "hello.gram" ? 1 : a.localeCompare(b)));
const examples = names.map((name) => ({ name, text: readFileSync(join(examplesDir, name), "utf8") }));
writeFileSync(join(out, "examples.json"), JSON.stringify(examples));

// What the page loads, which the service worker keeps for offline use.
const files = ["index.html", "app.js", "app.css", "boot.js", "worker.js", "gram.wasm.gz", "examples.json"];
const hash = createHash("sha256");
for (const f of files) {
  hash.update(f).update(readFileSync(join(out, f)));
}
const version = "gram-playground-" + hash.digest("hex").slice(0, 16);
const sw = readFileSync(join(here, "src", "sw.js"), "utf8")
  .replace("__VERSION__", version)
  .replace("__FILES__", JSON.stringify(["./", ...files]));
writeFileSync(join(out, "sw.js"), sw);

const wasm = readFileSync(join(out, "gram.wasm"));
const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
console.log(`playground: built ${out} (${version})`);
for (const f of [...files, "sw.js"]) {
  const b = readFileSync(join(out, f));
  console.log(`  ${f.padEnd(14)} ${kb(statSync(join(out, f)).size).padStart(8)}  gzip ${kb(gzipSync(b, { level: 9 }).length).padStart(8)}`);
}
if (wasm.length === 0) {
  process.exit(1);
}
