// Runs the packaged extension inside a real VS Code: code-server (VS Code 1.100
// for the browser) with the .vsix installed by --install-extension, driven by
// Debian's Chromium through puppeteer-core. It opens a correct and a broken
// .gram file and checks, from the page:
//   (a) the editor's language mode is Gram and its tokens carry more than one
//       colour class;
//   (b) the broken file shows an error squiggle and a Problems entry with the
//       diagnostic's code;
//   (c) hovering a tool's name shows its schema;
//   (d) "Gram: Show Tool Schema" opens a JSON document;
// and that the language status shows the bundled server running, the context
// menu offers Show Tool Schema on a tool only, a ```gram block in a Markdown
// file is highlighted, and (e) the "Run test" code lens above a test of a copy
// of the repository's examples package (its bindings.gram, tools and
// cassettes) runs it, replaying its cassette offline, and reports it passed.
// Screenshots of each step go to build/workbench/screenshots.
//
// Usage: node run.mjs PATH/TO/gram-linux-x64.vsix (install.sh first).
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { basename, delimiter, join, resolve } from "node:path";
import puppeteer from "puppeteer-core";

const here = import.meta.dirname;
const vsix = resolve(process.argv[2] ?? join(here, "..", "..", "gram-linux-x64.vsix"));
const scratch = resolve(here, "..", "..", "build", "workbench");
const shots = join(scratch, "screenshots");
const home = join(scratch, "home");
const userData = join(scratch, "user-data");
const extensions = join(scratch, "extensions");
// The workspace is a copy of testdata/workspace: a correct package at its
// root and a broken one in broken/ (a directory is a package, so the two
// files must not share one). Its name starts with "_" so that
// `gramc check ./...` at the repository's root leaves the copy alone.
const workspace = join(scratch, "_workspace");
// The repository's examples package, copied into the workspace as examples/.
const examples = resolve(here, "..", "..", "..", "..", "examples");
const codeServer = join(here, "node_modules", "code-server", "out", "node", "entry.js");
const chromium = process.env.CHROMIUM ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(existsSync);
const step = Number(process.env.GRAM_WORKBENCH_TIMEOUT ?? 60000);

let failed = false;
let server;
let browser;
let serverLog = "";

function log(msg) {
  process.stdout.write(`workbench: ${msg}\n`);
}

function fail(msg) {
  throw new Error(msg);
}

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The environment for code-server and Chromium: a scratch HOME, no gram-lsp on the PATH. */
function environment() {
  const path = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((d) => d && !existsSync(join(d, "gram-lsp")))
    .join(delimiter);
  return {
    ...process.env,
    PATH: path,
    HOME: home,
    // The Run test lens replays cassettes: no model is ever reached.
    OPENAI_API_KEY: "",
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    TMPDIR: join(scratch, "tmp"),
  };
}

/** Resets the scratch folders (not the installed npm packages) and writes the workspace. */
function prepare() {
  for (const d of [shots, home, userData, extensions, workspace]) {
    rmSync(d, { recursive: true, force: true });
    mkdirSync(d, { recursive: true });
  }
  mkdirSync(join(scratch, "tmp"), { recursive: true });
  cpSync(join(here, "testdata", "workspace"), workspace, { recursive: true });
  cpSync(examples, join(workspace, "examples"), { recursive: true });
  mkdirSync(join(userData, "User"), { recursive: true });
  writeFileSync(
    join(userData, "User", "settings.json"),
    JSON.stringify(
      {
        "security.workspace.trust.enabled": false,
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": false,
        "workbench.enableExperiments": false,
        "extensions.ignoreRecommendations": true,
        "extensions.autoCheckUpdates": false,
        "extensions.autoUpdate": false,
        "telemetry.telemetryLevel": "off",
        "update.mode": "none",
        "editor.hover.delay": 100,
        "window.restoreWindows": "none",
        "files.hotExit": "off",
        "git.enabled": false,
        "git.openRepositoryInParentFolders": "never",
      },
      null,
      2,
    ),
  );
}

/** Installs the .vsix with code-server's --install-extension. */
function installExtension() {
  if (!existsSync(vsix)) {
    fail(`${vsix} does not exist: run make vsix first`);
  }
  const r = spawnSync(
    process.execPath,
    [codeServer, "--user-data-dir", userData, "--extensions-dir", extensions, "--install-extension", vsix],
    { env: environment(), encoding: "utf8", timeout: 120000 },
  );
  if (r.status !== 0) {
    fail(`code-server --install-extension failed (status ${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  const list = spawnSync(process.execPath, [codeServer, "--extensions-dir", extensions, "--list-extensions", "--show-versions"], {
    env: environment(),
    encoding: "utf8",
    timeout: 60000,
  });
  if (!/gramlang\.gram@/.test(list.stdout)) {
    fail(`the extension is not listed after installing it:\n${list.stdout}\n${list.stderr}`);
  }
  log(`installed ${list.stdout.trim()}`);
}

/** Starts code-server on a free port and waits until it answers. */
async function startServer() {
  const port = await freePort();
  server = spawn(
    process.execPath,
    [
      codeServer,
      "--auth",
      "none",
      "--bind-addr",
      `127.0.0.1:${port}`,
      "--user-data-dir",
      userData,
      "--extensions-dir",
      extensions,
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      workspace,
    ],
    { env: environment(), stdio: ["ignore", "pipe", "pipe"] },
  );
  server.stdout.on("data", (b) => (serverLog += b));
  server.stderr.on("data", (b) => (serverLog += b));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + step;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) {
      fail(`code-server exited with status ${server.exitCode}:\n${serverLog}`);
    }
    try {
      const r = await fetch(`${base}/healthz`);
      if (r.ok) {
        log(`code-server ${base} is up`);
        return { base, host: `127.0.0.1:${port}` };
      }
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  fail(`code-server did not answer on ${base} within ${step} ms:\n${serverLog}`);
}

/** The URL that opens the workspace with one file in an editor. */
function openURL(base, host, file) {
  const payload = JSON.stringify([["openFile", `vscode-remote://${host}${join(workspace, file)}`]]);
  return `${base}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(payload)}`;
}

/**
 * Opens the workbench on a file in a new tab (closing the previous one, so no
 * unsaved editor can hold the page) and waits for its editor, retrying the load.
 */
async function openFile(previous, base, host, file) {
  if (previous) {
    await previous.close({ runBeforeUnload: false }).catch(() => {});
  }
  let last;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const page = await browser.newPage();
    page.setDefaultTimeout(step);
    page.on("dialog", (d) => d.accept().catch(() => {}));
    try {
      await page.goto(openURL(base, host, file), { waitUntil: "domcontentloaded", timeout: step });
      await page.waitForSelector(".monaco-workbench", { timeout: step });
      await page.waitForFunction(
        (name) => {
          const tab = document.querySelector(".tab.active");
          return tab && tab.textContent.includes(name) && document.querySelector(".monaco-editor .view-lines .view-line");
        },
        { timeout: step },
        basename(file),
      );
      return page;
    } catch (err) {
      last = err;
      log(`loading ${file} failed (attempt ${attempt}): ${err.message}`);
      await page.close({ runBeforeUnload: false }).catch(() => {});
    }
  }
  fail(`the workbench did not open ${file}: ${last?.message}`);
}

/** The centre of the first token in the active editor whose text is exactly text. */
async function tokenCentre(page, text, nth = 0) {
  const box = await page.evaluate(
    (text, nth) => {
      const spans = [...document.querySelectorAll(".editor-group-container.active .monaco-editor .view-lines span[class*='mtk']")];
      const hits = spans.filter((s) => s.textContent === text).sort((a, b) => {
        const ra = a.getBoundingClientRect();
        const rb = b.getBoundingClientRect();
        return ra.top - rb.top || ra.left - rb.left;
      });
      const s = hits[nth];
      if (!s) {
        return null;
      }
      const r = s.getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    },
    text,
    nth,
  );
  if (!box) {
    fail(`no token "${text}" in the editor`);
  }
  return box;
}

/** Runs a command from the command palette by its label and picks the first match. */
async function runCommand(page, label) {
  await page.keyboard.press("Escape");
  await page.keyboard.press("F1");
  await page.waitForSelector(".quick-input-widget input", { visible: true, timeout: step });
  await page.keyboard.type(label);
  await page.waitForFunction(
    (label) =>
      [...document.querySelectorAll(".quick-input-widget .monaco-list-row")].some((r) => r.textContent.includes(label)),
    { timeout: step },
    label,
  );
  await page.keyboard.press("Enter");
}

/** Waits until the quick pick lists a row with the text, then picks the focused row. */
async function pick(page, text) {
  await page.waitForFunction(
    (text) =>
      [...document.querySelectorAll(".quick-input-widget .monaco-list-row")].some((r) => r.textContent.includes(text)),
    { timeout: step },
    text,
  );
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
}

async function shot(page, name) {
  const file = join(shots, name);
  await page.screenshot({ path: file });
  log(`screenshot ${file}`);
}

async function main() {
  if (!chromium) {
    fail("chromium not found: run test/workbench/install.sh (Debian's chromium)");
  }
  if (!existsSync(codeServer)) {
    fail(`${codeServer} not found: run test/workbench/install.sh`);
  }
  prepare();
  installExtension();
  const { base, host } = await startServer();
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    userDataDir: join(scratch, "chromium"),
    env: environment(),
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900", "--no-first-run"],
    defaultViewport: { width: 1400, height: 900 },
    protocolTimeout: step * 2,
  });

  // (a) A correct file: language mode Gram, several colour classes.
  let page = await openFile(undefined, base, host, "orders.gram");
  await page.waitForFunction(
    () => document.querySelector("[id='status.editor.mode']")?.textContent.trim() === "Gram",
    { timeout: step },
  ).catch(() => fail("the language mode of orders.gram is not Gram"));
  let classes = [];
  await page
    .waitForFunction(
      () => {
        const cls = new Set();
        for (const s of document.querySelectorAll(".monaco-editor .view-lines span[class*='mtk']")) {
          for (const c of s.classList) {
            if (/^mtk\d+$/.test(c)) {
              cls.add(c);
            }
          }
        }
        return cls.size > 1;
      },
      { timeout: step },
    )
    .catch(() => fail("the tokens of orders.gram carry fewer than two colour classes"));
  classes = await page.evaluate(() => {
    const cls = new Set();
    for (const s of document.querySelectorAll(".monaco-editor .view-lines span[class*='mtk']")) {
      for (const c of s.classList) {
        if (/^mtk\d+$/.test(c)) {
          cls.add(c);
        }
      }
    }
    return [...cls].sort();
  });
  log(`(a) language mode Gram; colour classes ${classes.join(" ")}`);
  await shot(page, "a-highlighting.png");

  // (c) Hover over the tool's name shows its schema. The server must be up:
  // wait for the hover to answer, moving the mouse again while waiting.
  const name = await tokenCentre(page, "lookup");
  let hover = "";
  const hoverDeadline = Date.now() + step;
  while (Date.now() < hoverDeadline) {
    await page.mouse.move(name.x + 30, name.y + 200);
    await page.mouse.move(name.x, name.y, { steps: 3 });
    try {
      await page.waitForFunction(
        () => [...document.querySelectorAll(".monaco-hover")].some((h) => h.offsetParent !== null && h.textContent.includes("orderId")),
        { timeout: 5000 },
      );
      hover = await page.evaluate(() =>
        [...document.querySelectorAll(".monaco-hover")].map((h) => h.textContent).join("\n"),
      );
      break;
    } catch {
      // not yet
    }
  }
  if (!hover) {
    fail("hovering the tool name showed no hover with its parameters");
  }
  if (!hover.includes("JSON Schema") || !hover.includes('"properties"') || !hover.includes('"orderId"')) {
    fail(`the hover over the tool name does not show its JSON Schema:\n${hover}`);
  }
  log("(c) hover over lookup shows its JSON Schema");
  await shot(page, "c-hover.png");

  // The language status item: the server runs, with its version.
  await page.keyboard.press("Escape");
  // The status bar draws the item once the editor's language is known and
  // may draw it again on any update, so it is waited for and looked up
  // afresh on every attempt rather than held from one query.
  const statusSelector = "[id='status.languageStatus']";
  const langStatus = await page.waitForSelector(statusSelector, { visible: true, timeout: step }).catch(() => null);
  if (!langStatus) {
    fail("the status bar has no language status item");
  }
  let statusText = "";
  for (let attempt = 0; attempt < 5 && !statusText; attempt++) {
    await page.mouse.move(10, 10);
    const item = await page.waitForSelector(statusSelector, { visible: true, timeout: step }).catch(() => null);
    if (!item) {
      break;
    }
    await item.hover().catch(() => {});
    statusText = await page
      .waitForFunction(
        () =>
          [...document.querySelectorAll(".hover-language-status")]
            .map((h) => h.textContent)
            .find((t) => t.includes("gram-lsp") && t.includes("running")),
        { timeout: 5000 },
      )
      .then((h) => h.jsonValue())
      .catch(() => "");
  }
  if (!statusText) {
    fail("the language status does not show gram-lsp running");
  }
  if (!/gram-lsp \S+ running/.test(statusText)) {
    fail(`the language status does not show the server's version: ${statusText}`);
  }
  if (!statusText.includes("bundled")) {
    fail(`the language status does not show the bundled server in use: ${statusText}`);
  }
  log(`language status: ${statusText}`);
  await shot(page, "status.png");
  await page.mouse.move(10, 10);

  // The editor's context menu offers Show Tool Schema on a tool, not elsewhere.
  const menuHas = async (at, label) => {
    await page.keyboard.press("Escape");
    await page.mouse.click(at.x, at.y);
    await new Promise((r) => setTimeout(r, 500));
    await page.mouse.click(at.x, at.y, { button: "right" });
    // The workbench draws its context menu in a shadow root.
    await page.waitForSelector("pierce/.monaco-menu .action-label", { visible: true, timeout: step });
    const labels = await page.$$eval("pierce/.monaco-menu .action-label", (ls) => ls.map((l) => l.textContent.trim()));
    await page.keyboard.press("Escape");
    return labels.includes(label) ? labels : null;
  };
  // The extension learns the outline from the server once it runs: allow it a few tries.
  let onTool = null;
  for (let attempt = 0; attempt < 5 && !onTool; attempt++) {
    onTool = await menuHas(name, "Show Tool Schema");
  }
  if (!onTool) {
    fail("the context menu on the tool's name has no Show Tool Schema");
  }
  const kind = await tokenCentre(page, "kind");
  if (await menuHas(kind, "Show Tool Schema")) {
    fail("the context menu outside tools and agents offers Show Tool Schema");
  }
  log("context menu: Show Tool Schema on the tool, not on the header");

  // (d) Gram: Show Tool Schema, with the cursor on the tool's name, picking
  // OpenAI and strict.
  await page.keyboard.press("Escape");
  await page.mouse.click(name.x, name.y);
  await runCommand(page, "Gram: Show Tool Schema");
  await pick(page, "OpenAI");
  await pick(page, "Strict");
  await page
    .waitForFunction(
      () =>
        document.querySelector("[id='status.editor.mode']")?.textContent.trim() === "JSON" &&
        [...document.querySelectorAll(".monaco-editor .view-lines")].some((v) => v.textContent.includes('"function"')),
      { timeout: step },
    )
    .catch(() => fail('"Gram: Show Tool Schema" did not open a JSON document with the tool'));
  const json = await page.evaluate(() =>
    [...document.querySelectorAll(".monaco-editor .view-lines")].map((v) => v.textContent).join("\n"),
  );
  if (!/"strict":\s*true/.test(json.replace(/\u00a0/g, " "))) {
    fail(`the schema document is not the strict OpenAI tool:\n${json}`);
  }
  log("(d) Gram: Show Tool Schema opened a JSON document (OpenAI, strict)");
  await shot(page, "d-tool-schema.png");

  // (b) A broken file: an error squiggle and a Problems entry with the code.
  page = await openFile(page, base, host, "broken/broken.gram");
  await page
    .waitForSelector(".monaco-editor .squiggly-error", { timeout: step })
    .catch(() => fail("broken.gram shows no error squiggle"));
  await page.keyboard.press("Escape");
  await page.keyboard.down("Control");
  await page.keyboard.down("Shift");
  await page.keyboard.press("KeyM");
  await page.keyboard.up("Shift");
  await page.keyboard.up("Control");
  await page
    .waitForFunction(
      () => [...document.querySelectorAll(".markers-panel .monaco-list-row")].some((r) => r.textContent.includes("unknown-type")),
      { timeout: step },
    )
    .catch(async () => {
      const text = await page.evaluate(() => document.querySelector(".markers-panel")?.textContent ?? "(no Problems panel)");
      fail(`the Problems panel has no entry with the code unknown-type: ${text}`);
    });
  const problem = await page.evaluate(() =>
    [...document.querySelectorAll(".markers-panel .monaco-list-row")].map((r) => r.textContent).find((t) => t.includes("unknown-type")),
  );
  log(`(b) error squiggle; Problems: ${problem}`);
  await shot(page, "b-diagnostics.png");

  // A ```gram block in a Markdown file is highlighted as gram.
  page = await openFile(page, base, host, "notes.md");
  const blockClasses = await page
    .waitForFunction(
      () => {
        const line = [...document.querySelectorAll(".monaco-editor .view-line")].find((l) =>
          l.textContent.startsWith("[lookup:Tool"),
        );
        if (!line) {
          return false;
        }
        const cls = new Set([...line.querySelectorAll("span[class*='mtk']")].map((s) => s.className));
        return cls.size >= 3 && [...cls];
      },
      { timeout: step },
    )
    .then((h) => h.jsonValue())
    .catch(() => fail("the ```gram block in notes.md is not highlighted as gram"));
  log(`Markdown: the gram block's line carries ${blockClasses.length} colour classes`);
  await shot(page, "markdown.png");

  // (e) The "Run test" code lens above a test of the examples package runs it
  // with the package's bindings.gram, replaying its cassette, and the result
  // comes back as a notification saying it passed.
  const test = "lists_open_orders";
  page = await openFile(page, base, host, "examples/orders_test.gram");
  const lensSelector = ".monaco-editor .codelens-decoration a";
  await page
    .waitForFunction(
      (sel, title) => [...document.querySelectorAll(sel)].some((a) => a.textContent.trim().endsWith(title)),
      { timeout: step },
      lensSelector,
      `Run test ${test}`,
    )
    .catch(async () => {
      const lenses = await page.$$eval(lensSelector, (as) => as.map((a) => a.textContent.trim()));
      fail(`orders_test.gram shows no "Run test ${test}" code lens; lenses: ${JSON.stringify(lenses)}`);
    });
  const lenses = await page.$$eval(lensSelector, (as) => as.map((a) => a.textContent.trim()));
  log(`(e) code lenses: ${lenses.join(" | ")}`);
  // The editor runs a lens's command on a mouse down over it: click it with
  // the mouse. The server's lenses may be drawn again at any time (after a
  // diagnostics update), so the lens is looked up afresh on every attempt, and
  // clicked again when no result came.
  // A notification's message, without the style sheet the toast carries.
  const toasts = ".notifications-toasts .notification-toast .notification-list-item-message";
  const result = () =>
    page.evaluate(
      (sel, test) => [...document.querySelectorAll(sel)].map((t) => t.textContent).find((t) => t.includes(`Test ${test}`)),
      toasts,
      test,
    );
  let outcome;
  const runDeadline = Date.now() + step;
  while (!outcome && Date.now() < runDeadline) {
    const lens = await page.evaluate(
      (sel, title) => {
        const a = [...document.querySelectorAll(sel)].find((a) => a.textContent.trim().endsWith(title));
        if (!a) {
          return null;
        }
        const r = a.getBoundingClientRect();
        return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
      },
      lensSelector,
      `Run test ${test}`,
    );
    if (lens) {
      await page.mouse.click(lens.x, lens.y);
      const clicked = Date.now();
      while (!outcome && Date.now() - clicked < 10000) {
        await new Promise((r) => setTimeout(r, 250));
        outcome = await result();
      }
    } else {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  if (!outcome) {
    const shown = await page.$$eval(toasts, (ts) => ts.map((t) => t.textContent));
    fail(`running ${test} from its code lens showed no result; notifications: ${JSON.stringify(shown)}`);
  }
  await shot(page, "e-run-test.png");
  if (!outcome.includes(`Test ${test} passed`)) {
    fail(`running ${test} from its code lens did not pass: ${outcome}`);
  }
  if (!outcome.includes("(replay)")) {
    fail(`running ${test} from its code lens did not replay its cassette: ${outcome}`);
  }
  log(`(e) Run test ${test}: ${outcome}`);
}

const timer = setTimeout(() => {
  process.stderr.write(`workbench: FAIL: the test did not finish in ${step * 10} ms\n`);
  server?.kill("SIGKILL");
  process.exit(1);
}, step * 10);

try {
  await main();
  log("PASS");
} catch (err) {
  failed = true;
  process.stderr.write(`workbench: FAIL: ${err.message}\n`);
  try {
    const pages = browser ? await browser.pages() : [];
    if (pages.length > 0) {
      await pages[pages.length - 1].screenshot({ path: join(shots, "failure.png") });
      process.stderr.write(`workbench: screenshot of the failure: ${join(shots, "failure.png")}\n`);
    }
  } catch {
    // no page to show
  }
  if (serverLog) {
    writeFileSync(join(scratch, "code-server.log"), serverLog);
    process.stderr.write(`workbench: code-server's log: ${join(scratch, "code-server.log")}\n`);
  }
} finally {
  clearTimeout(timer);
  await browser?.close().catch(() => {});
  server?.kill();
}
process.exit(failed ? 1 : 0);
