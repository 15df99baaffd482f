// The playground in a real browser: Debian's Chromium, driven by
// puppeteer-core, against the page that `gramc playground` serves from the
// files embedded in it. It checks, in order:
//   (a) cold loads: first diagnostics within the budget (1.5 s after
//       navigation), the WebAssembly module within its size budget (4 MB
//       gzip), the text highlighted with several colours;
//   (b) an example picked from the menu checks clean;
//   (c) a mistake typed in shows an error squiggle and its message, and its
//       quick fix clears it;
//   (d) hover and completion answer;
//   (e) the schema pane switches targets (openai, mcp, strict) and shows
//       one agent's tools (an agent it calls, its handoff) and its answer's
//       schema, and the formatted text and tree panes fill;
//   (f) a share link opened in a new page gives the same text back;
//   (g) keystrokes in a 500-line file: diagnostics within 50 ms (median);
//   (h) with the server stopped, the page still loads and checks (offline).
// It prints the measurements with the machine's load average and writes
// them to build/budgets.json; screenshots go to build/screenshots.
//
// Usage: node test/browser.mjs PATH/TO/gramc (make playground first).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import puppeteer from "puppeteer-core";

const here = import.meta.dirname;
const gramc = resolve(process.argv[2] ?? join(here, "..", "..", "..", "bin", "gramc"));
const build = join(here, "..", "build");
const shots = join(build, "screenshots");
const dist = join(here, "..", "..", "dist");
const chromium = process.env.CHROMIUM ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(existsSync);
const step = Number(process.env.GRAM_PLAYGROUND_TIMEOUT ?? 30000);

// composed has an agent with a signature element that another lists
// among its tools and hands off to.
const composed = `[Invoice:Record {description: "An invoice"} |
  (total::Number)
]
[billing:Agent {description: "Answers billing questions", model: "OpenAI/gpt-4o-mini", instruction: "Bill."} |
  (question::String)==>(::Invoice)
]
[triage:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Triage."} |
  billing
]
(triage)-[:Handoff {description: "Billing questions"}]->(billing)
`;

const budgets = { wasmGzipBytes: 4 * 1024 * 1024, firstDiagnosticsMs: 1500, keystrokeMs: 50 };
const results = { loadavg: loadavg(), cores: (await import("node:os")).cpus().length };

let server;
let browser;
let failed = false;

function log(msg) {
  process.stdout.write(`playground: ${msg}\n`);
}

function fail(msg) {
  throw new Error(msg);
}

function load() {
  return loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");
}

async function shot(page, name) {
  await page.screenshot({ path: join(shots, name) });
  log(`screenshot ${join(shots, name)}`);
}

/** Starts gramc playground on a free port; resolves to its address. */
function startServer() {
  return new Promise((resolveURL, reject) => {
    server = spawn(gramc, ["playground", "--addr", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const timer = setTimeout(() => reject(new Error(`gramc playground printed no address: ${out}`)), step);
    const read = (b) => {
      out += b;
      const m = /serving (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveURL(m[1]);
      }
    };
    server.stdout.on("data", read);
    server.stderr.on("data", read);
    server.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`gramc playground exited with ${code}: ${out}`));
    });
  });
}

/** Opens url in page and waits until the playground has checked its text. */
async function open(page, url) {
  await page.goto(url, { waitUntil: "domcontentloaded", timeout: step });
  await page.waitForFunction(() => window.gramPlayground?.ready && window.gramPlayground.timings.firstDiagnosticsPainted !== undefined, {
    timeout: step,
  });
}

const text = (page) => page.evaluate(() => window.gramPlayground.view.state.doc.toString());
const status = (page) => page.$eval("#status", (s) => s.textContent);

/** Waits until the status line (diagnostic counts) matches re. */
async function waitStatus(page, re, what) {
  await page
    .waitForFunction((src) => new RegExp(src).test(document.getElementById("status").textContent), { timeout: step }, re.source)
    .catch(async () => fail(`${what}: the status says ${JSON.stringify(await status(page))}, want ${re}`));
}

/** Puts the cursor at offset off of the editor's text. */
async function cursorAt(page, off) {
  await page.evaluate((off) => {
    const v = window.gramPlayground.view;
    v.dispatch({ selection: { anchor: off }, scrollIntoView: true });
    v.focus();
  }, off);
}

/** The middle of the first element matching selector. */
async function centre(page, selector) {
  const box = await (await page.waitForSelector(selector, { visible: true, timeout: step })).boundingBox();
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A clean gram file of about n lines: tools, a record and an agent using them all. */
function bigFile(n) {
  const tools = [];
  const parts = ["// A file of many tools, for the keystroke budget.\n"];
  let lines = 1;
  for (let i = 0; lines + 8 + Math.ceil(tools.length / 10) < n; i++) {
    tools.push(`tool${i}`);
    parts.push(
      `[tool${i}:Tool {description: "Looks up item ${i}"} |\n` +
        `  (id${i}::String {description: "The id of item ${i}", minLength: 1})==>\n` +
        `  (count${i}::Integer {default: 1, minimum: 0})==>\n` +
        `  (::Item)\n]\n\n`,
    );
    lines += 6;
  }
  parts.push('[Item:Record {description: "An item"} |\n  (name::String),\n  (tags::Array {items: String})\n]\n\n');
  const list = [];
  for (let i = 0; i < tools.length; i += 10) {
    list.push("  " + tools.slice(i, i + 10).join(", "));
  }
  parts.push(`[clerk:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} |\n${list.join(",\n")}\n]\n`);
  return parts.join("");
}

async function main() {
  if (!chromium) {
    fail("chromium not found: run test/install.sh (Debian's chromium)");
  }
  if (!existsSync(gramc)) {
    fail(`${gramc} not found: run make playground`);
  }
  rmSync(build, { recursive: true, force: true });
  mkdirSync(shots, { recursive: true });
  log(`load average ${load()} on ${results.cores} cores`);

  // The module's size, compressed as a server would send it.
  const wasm = readFileSync(join(dist, "gram.wasm"));
  results.wasmBytes = wasm.length;
  results.wasmGzipBytes = gzipSync(wasm, { level: 9 }).length;
  log(`gram.wasm: ${(wasm.length / 1048576).toFixed(2)} MB, ${(results.wasmGzipBytes / 1048576).toFixed(2)} MB gzip (budget 4 MB)`);
  if (results.wasmGzipBytes > budgets.wasmGzipBytes) {
    fail(`gram.wasm is ${results.wasmGzipBytes} bytes gzip, over the budget of ${budgets.wasmGzipBytes}`);
  }

  const base = await startServer();
  log(`gramc playground serves ${base}`);
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    userDataDir: join(build, "chromium"),
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // Headless Chromium opens a window for each browser context below,
      // and each window starts two renderers for its address bar's popup
      // (chrome://omnibox-popup.top-chrome), which take about a second of
      // CPU just as the page loads: on two cores that doubled the cold
      // loads' times. A person's browser has its window before the page.
      "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup",
      "--window-size=1400,900",
    ],
    defaultViewport: { width: 1400, height: 900 },
    protocolTimeout: step * 2,
  });

  // (a) Cold loads, each in a fresh context (no cache, no service worker).
  const firsts = [];
  for (let i = 0; i < 3; i++) {
    const ctx = await browser.createBrowserContext();
    const p = await ctx.newPage();
    await open(p, base);
    const t = await p.evaluate(() => window.gramPlayground.timings);
    firsts.push(t.firstDiagnosticsPainted);
    log(`(a) cold load ${i + 1}: toolchain ready ${t.wasmReady.toFixed(0)} ms, first diagnostics ${t.firstDiagnostics.toFixed(0)} ms, painted ${t.firstDiagnosticsPainted.toFixed(0)} ms after navigation (load ${load()})`);
    await ctx.close();
  }
  results.firstDiagnosticsMs = firsts;
  if (median(firsts) > budgets.firstDiagnosticsMs) {
    fail(`first diagnostics ${median(firsts).toFixed(0)} ms after navigation (median of ${firsts.length}), over the budget of ${budgets.firstDiagnosticsMs} ms`);
  }

  const page = await browser.newPage();
  page.setDefaultTimeout(step);
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await open(page, base);
  const classes = await page.evaluate(() => {
    const cls = new Set();
    for (const s of document.querySelectorAll(".cm-content .cm-line span")) {
      cls.add(s.className);
    }
    return [...cls];
  });
  if (classes.length < 5) {
    fail(`the text carries ${classes.length} highlighting classes, want 5 or more: ${classes}`);
  }
  log(`(a) highlighted with ${classes.length} classes`);
  await shot(page, "a-loaded.png");

  // (b) An example from the menu.
  await page.select("#examples", "orders.gram");
  await page.waitForFunction(() => window.gramPlayground.view.state.doc.toString().includes("Record"), { timeout: step });
  await waitStatus(page, /^no problems/, "orders.gram");
  const orders = await text(page);
  log(`(b) orders.gram picked: ${orders.split("\n").length} lines, ${await status(page)}`);
  await shot(page, "b-example.png");

  // (c) A mistake: the first "String" of a parameter loses its i, typed.
  const at = orders.indexOf("::String") + "::Str".length;
  if (at < "::Str".length) {
    fail("orders.gram has no ::String to break");
  }
  await cursorAt(page, at);
  await page.keyboard.press("Delete");
  await page.waitForSelector(".cm-lintRange-error", { timeout: step }).catch(() => fail("no error squiggle after the mistake"));
  await waitStatus(page, /^1 error/, "after the mistake");
  const squiggle = await centre(page, ".cm-lintRange-error");
  await page.mouse.move(squiggle.x, squiggle.y + 40);
  await page.mouse.move(squiggle.x, squiggle.y, { steps: 4 });
  const message = await page
    .waitForFunction(() => document.querySelector(".cm-tooltip-lint")?.textContent, { timeout: step })
    .then((h) => h.jsonValue())
    .catch(() => fail("hovering the squiggle shows no message"));
  if (!message.includes("unknown-type") || !/Strng/.test(message)) {
    fail(`the squiggle's message does not name the mistake: ${message}`);
  }
  log(`(c) squiggle: ${message}`);
  await shot(page, "c-mistake.png");
  const action = await page.waitForSelector(".cm-tooltip-lint .cm-diagnosticAction", { visible: true, timeout: step }).catch(() => fail("the message has no quick fix"));
  const title = await action.evaluate((b) => b.textContent);
  await action.click();
  await page.waitForFunction(() => !document.querySelector(".cm-lintRange-error"), { timeout: step }).catch(() => fail(`the quick fix ${title} left the squiggle`));
  await waitStatus(page, /^no problems/, "after the quick fix");
  if ((await text(page)) !== orders) {
    fail(`the quick fix ${title} did not give the example back`);
  }
  log(`(c) quick fix "${title}" applied: no problems`);
  await shot(page, "c-fixed.png");

  // (d) Hover over the first tool's name, and completion after a label's colon.
  await page.mouse.move(5, 5);
  await page.keyboard.press("Escape");
  const toolName = /\[(\w+):Tool/.exec(orders)[1];
  const nameBox = await page.evaluate((name) => {
    const v = window.gramPlayground.view;
    const off = v.state.doc.toString().indexOf(`[${name}:Tool`) + 2;
    const c = v.coordsAtPos(off);
    return { x: (c.left + c.right) / 2 + 3, y: (c.top + c.bottom) / 2 };
  }, toolName);
  await page.mouse.move(nameBox.x, nameBox.y + 30);
  await page.mouse.move(nameBox.x, nameBox.y, { steps: 3 });
  const hover = await page
    .waitForFunction(() => document.querySelector(".cm-tooltip-hover .gram-hover")?.textContent, { timeout: step })
    .then((h) => h.jsonValue())
    .catch(() => fail(`hovering ${toolName} shows nothing`));
  if (!hover.includes(`tool ${toolName}`) || !hover.includes("JSON Schema")) {
    fail(`the hover over ${toolName} does not describe the tool: ${hover}`);
  }
  log(`(d) hover over ${toolName}: ${hover.slice(0, 60)}…`);
  await shot(page, "d-hover.png");
  await page.mouse.move(5, 5);
  await cursorAt(page, orders.length);
  await page.keyboard.type("\n[x:");
  const labels = await page
    .waitForFunction(
      () => {
        const items = [...document.querySelectorAll(".cm-tooltip-autocomplete li")].map((l) => l.textContent);
        return items.length > 0 && items;
      },
      { timeout: step },
    )
    .then((h) => h.jsonValue())
    .catch(() => fail("no completion after [x:"));
  if (!labels.some((l) => l.startsWith("Agent")) || !labels.some((l) => l.startsWith("String"))) {
    fail(`completion after [x: does not offer the labels and types: ${labels}`);
  }
  log(`(d) completion after [x: offers ${labels.length} items`);
  await shot(page, "d-completion.png");
  await page.keyboard.press("Escape");
  await page.evaluate((t) => {
    const v = window.gramPlayground.view;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: t } });
  }, orders);
  await waitStatus(page, /^no problems/, "orders.gram again");

  // (e) The schema pane, for each target, and strict.
  await page.click("#tab-schema");
  const schemaFor = async (target, strict, want) => {
    await page.select("#target", target);
    const box = await page.$("#strict");
    if ((await box.evaluate((b) => b.checked)) !== strict) {
      await box.click();
    }
    await page
      .waitForFunction((w) => document.getElementById("out-schema").textContent.includes(w), { timeout: step }, want)
      .catch(async () => fail(`the ${target} schema${strict ? " (strict)" : ""} has no ${want}: ${await page.$eval("#out-schema", (p) => p.textContent.slice(0, 300))}`));
  };
  await schemaFor("openai", false, '"type": "function"');
  await schemaFor("mcp", false, '"inputSchema"');
  await shot(page, "e-schema-mcp.png");
  await schemaFor("jsonschema", false, '"$schema"');
  await schemaFor("openai", true, '"strict": true');
  log("(e) schema pane: openai, mcp, jsonschema and strict openai");
  await shot(page, "e-schema-strict.png");
  // The Tools of menu: an agent's tools, the agent it calls and its
  // handoff's tool among them; the schema of an agent's typed answer.
  await schemaFor("openai", false, '"type": "function"');
  await page.evaluate((t) => {
    const v = window.gramPlayground.view;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: t } });
  }, composed);
  await waitStatus(page, /^no problems/, "the composed agents");
  const agentSchema = async (agent, wants) => {
    await page
      .waitForFunction((a) => [...document.getElementById("agent").options].some((o) => o.value === a), { timeout: step }, agent)
      .catch(() => fail(`the agent menu has no ${agent}`));
    await page.select("#agent", agent);
    await page
      .waitForFunction((ws) => ws.every((w) => document.getElementById("out-schema").textContent.includes(w)), { timeout: step }, wants)
      .catch(async () => fail(`the schema of agent ${agent} has not ${wants}: ${await page.$eval("#out-schema", (p) => p.textContent.slice(0, 300))}`));
  };
  await agentSchema("triage", ['"agent": "triage"', '"name": "billing"', '"name": "transfer_to_billing"']);
  await agentSchema("billing", ['"agent": "billing"', '"result": {', '"total"']);
  log("(e) schema pane: an agent's tools, the agent it calls and its handoff, an agent's answer");
  await shot(page, "e-schema-agent.png");
  await page.select("#agent", "");
  await page.evaluate((t) => {
    const v = window.gramPlayground.view;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: t } });
  }, orders);
  await waitStatus(page, /^no problems/, "orders.gram after the composed agents");
  await page.click("#tab-format");
  await page.waitForFunction(() => document.getElementById("out-format").textContent.includes(":Tool"), { timeout: step });
  await page.click("#tab-tree");
  await page.waitForFunction(() => document.getElementById("out-tree").textContent.startsWith("(gram_pattern"), { timeout: step });
  log("(e) formatted text and tree panes filled");
  await shot(page, "e-tree.png");

  // (f) Share, and open the link in a new page.
  await page.click("#share");
  const url = await page
    .waitForFunction(() => document.getElementById("share-url").value.includes("#code="), { timeout: step })
    .then(() => page.$eval("#share-url", (i) => i.value));
  const other = await browser.newPage();
  await open(other, url);
  if ((await text(other)) !== orders) {
    fail(`the share link gives a different text back:\n${await text(other)}`);
  }
  log(`(f) a share link of ${url.length} characters gives the same text back`);
  await shot(other, "f-shared.png");
  await other.close();

  // (g) Keystrokes in a file of 500 lines.
  const big = bigFile(500);
  await page.evaluate((t) => {
    const v = window.gramPlayground.view;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: t } });
  }, big);
  await waitStatus(page, /^no problems/, "the 500-line file");
  const lines = big.split("\n").length;
  await cursorAt(page, big.indexOf("Looks up item 3") + "Looks up".length);
  await page.evaluate(() => {
    window.gramPlayground.timings.keystrokes.length = 0;
  });
  for (let i = 0; i < 25; i++) {
    await page.keyboard.type("x");
    await page.waitForFunction((n) => window.gramPlayground.timings.keystrokes.length >= n && window.gramPlayground.timings.keystrokes.at(-1).toPaintMs !== undefined, { timeout: step }, i + 1);
  }
  const keys = await page.evaluate(() => window.gramPlayground.timings.keystrokes);
  const toDiag = keys.map((k) => k.toDiagnosticsMs);
  const toPaint = keys.map((k) => k.toPaintMs);
  results.keystroke = {
    lines,
    keys: keys.length,
    medianMs: median(toDiag),
    maxMs: Math.max(...toDiag),
    inputMedianMs: median(keys.map((k) => k.inputMs)),
    checkMedianMs: median(keys.map((k) => k.checkMs)),
    paintMedianMs: median(toPaint),
  };
  log(
    `(g) ${keys.length} keystrokes in ${lines} lines: diagnostics ${results.keystroke.medianMs.toFixed(1)} ms median, ${results.keystroke.maxMs.toFixed(1)} ms max ` +
      `(the editor's input ${results.keystroke.inputMedianMs.toFixed(1)} ms, the check ${results.keystroke.checkMedianMs.toFixed(1)} ms; painted ${results.keystroke.paintMedianMs.toFixed(1)} ms median) (load ${load()})`,
  );
  if (results.keystroke.medianMs > budgets.keystrokeMs) {
    fail(`a keystroke in ${lines} lines takes ${results.keystroke.medianMs.toFixed(1)} ms to diagnostics (median), over the budget of ${budgets.keystrokeMs} ms`);
  }
  await shot(page, "g-500-lines.png");

  // (h) Offline: the service worker has the files; stop the server and load again.
  // The worker is ready once installed (its cache filled) and active.
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  server.removeAllListeners("exit");
  server.kill();
  await new Promise((r) => server.once("exit", r));
  server = null;
  const offline = await browser.newPage();
  await open(offline, base + "#" + url.split("#")[1]).catch((e) => fail(`with the server stopped the page does not load: ${e.message}`));
  if ((await text(offline)) !== orders) {
    fail("offline, the share link gives a different text back");
  }
  await waitStatus(offline, /^no problems/, "offline");
  log("(h) with the server stopped, the page loads from its service worker and checks");
  await shot(offline, "h-offline.png");

  if (errors.length) {
    fail(`the page threw: ${errors.join("; ")}`);
  }
  results.budgets = budgets;
  writeFileSync(join(build, "budgets.json"), JSON.stringify(results, null, 2) + "\n");
  log(
    `budgets: gram.wasm ${(results.wasmGzipBytes / 1048576).toFixed(2)} MB gzip (≤ 4 MB); first diagnostics ${firsts.map((f) => f.toFixed(0)).join(", ")} ms (median ≤ 1500 ms); ` +
      `keystroke in ${lines} lines ${results.keystroke.medianMs.toFixed(1)} ms median (≤ 50 ms); load average ${load()} on ${results.cores} cores`,
  );
}

const timer = setTimeout(() => {
  process.stderr.write("playground: FAIL: the test did not finish in time\n");
  server?.kill("SIGKILL");
  process.exit(1);
}, step * 16);

try {
  await main();
  log("PASS");
} catch (err) {
  failed = true;
  process.stderr.write(`playground: FAIL: ${err.message}\n`);
  try {
    const pages = browser ? await browser.pages() : [];
    if (pages.length > 0) {
      await pages[pages.length - 1].screenshot({ path: join(shots, "failure.png") });
      process.stderr.write(`playground: screenshot of the failure: ${join(shots, "failure.png")}\n`);
    }
  } catch {
    // no page to show
  }
} finally {
  clearTimeout(timer);
  await browser?.close().catch(() => {});
  server?.kill();
}
process.exit(failed ? 1 : 0);
