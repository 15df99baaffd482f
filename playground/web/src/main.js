// The gram playground: a CodeMirror editor with gram highlighting, checked
// on every change by the toolchain compiled to WebAssembly (diagnostics
// with quick fixes, hover, completion), beside panes with the tools' JSON
// Schemas, the formatted text and the syntax tree. The examples come from
// examples.json (built from the repository's examples/); Share puts the
// text in the address's fragment. A service worker keeps the files for
// offline use. Nothing is sent anywhere.
//
// For the browser test (test/browser.mjs) and anyone curious, the page
// records its timings in window.gramPlayground.timings, and its editor is
// window.gramPlayground.view.
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap, snippetCompletion } from "@codemirror/autocomplete";
import { defaultKeymap, history as undoHistory, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, indentOnInput } from "@codemirror/language";
import { lintGutter, lintKeymap, setDiagnostics } from "@codemirror/lint";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import { EditorState } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  hoverTooltip,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { loadGram } from "./gram.js";
import { gramHighlight, gramLanguage } from "./highlight.js";
import { renderMarkdown } from "./markdown.js";
import { decodeFragment, encodeFragment } from "./share.js";

const $ = (id) => document.getElementById(id);

const timings = { keystrokes: [] };
const playground = { timings, ready: false, checks: 0 };
window.gramPlayground = playground;

let gram = null;
let view = null;
// Settles when the first diagnostics are painted, or the first check
// failed: the offline copy (which downloads every file again) waits for it.
let firstCheckDone;
const firstChecked = new Promise((resolve) => {
  firstCheckDone = resolve;
});
let lastKeyAt = null;
let changedAt = null;

/** The offset in doc of a position the toolchain gives (UTF-16, 0-based). */
function offsetOf(doc, p) {
  if (p.line >= doc.lines) {
    return doc.length;
  }
  const line = doc.line(p.line + 1);
  return Math.min(line.from + p.character, line.to);
}

/** The toolchain's position of an offset of doc. */
function positionOf(doc, off) {
  const line = doc.lineAt(off);
  return { line: line.number - 1, character: off - line.from };
}

/** Applies a fix's edits to the editor. */
function applyFix(v, fix) {
  const doc = v.state.doc;
  v.dispatch({
    changes: fix.edits.map((e) => ({ from: offsetOf(doc, e.range.start), to: offsetOf(doc, e.range.end), insert: e.newText })),
    userEvent: "gram.fix",
  });
}

/** The message of a diagnostic as the editor's tooltip shows it. */
function renderDiagnostic(d) {
  const el = document.createElement("div");
  el.className = "gram-diagnostic";
  const code = document.createElement("code");
  code.className = "gram-code";
  code.textContent = `${d.severity}[${d.code}]`;
  el.append(code, " ", d.message);
  if (d.detail) {
    const help = document.createElement("div");
    help.className = "gram-help";
    help.textContent = "help: " + d.detail;
    el.append(help);
  }
  return el;
}

// One check at a time: a change made while the worker checks is checked
// when that answer comes, against the text as it is then.
let checking = false;
let checkAgain = false;

/** Checks the editor's text and shows its diagnostics. */
async function check() {
  if (!gram || !view) {
    return;
  }
  if (checking) {
    checkAgain = true;
    return;
  }
  checking = true;
  try {
    const state = view.state;
    const t0 = performance.now();
    const result = await gram.check(state.doc.toString());
    if (view.state.doc !== state.doc) {
      // The text changed meanwhile: these positions are stale.
      checkAgain = true;
      return;
    }
    showDiagnostics(state, result, t0);
  } catch (err) {
    showFailure(err);
  } finally {
    checking = false;
    if (checkAgain) {
      checkAgain = false;
      queueMicrotask(check);
    }
  }
}

/** Hands the diagnostics of a check of state's text, begun at t0, to the editor. */
function showDiagnostics(state, result, t0) {
  const t1 = performance.now();
  const diagnostics = result.diagnostics.map((d) => {
    const from = offsetOf(state.doc, d.range.start);
    const to = Math.max(from, offsetOf(state.doc, d.range.end));
    return {
      from,
      to,
      severity: d.severity,
      source: d.code,
      message: d.message,
      renderMessage: () => renderDiagnostic(d),
      actions: (d.fixes ?? []).map((fix) => ({ name: fix.title, apply: (v) => applyFix(v, fix) })),
    };
  });
  view.dispatch(setDiagnostics(view.state, diagnostics));
  const t2 = performance.now();
  playground.checks++;
  playground.lastCheck = {
    errors: result.errors,
    warnings: result.warnings,
    checkMs: result.checkMs,
    roundTripMs: t1 - t0,
    totalMs: t2 - t0,
    lines: state.doc.lines,
  };
  showStatus(result, result.checkMs);
  if (timings.firstDiagnostics === undefined) {
    timings.firstDiagnostics = t2;
    requestAnimationFrame(() => {
      timings.firstDiagnosticsPainted = performance.now();
      firstCheckDone();
    });
  }
  if (lastKeyAt !== null) {
    // inputMs: from the key to the editor's change; checkMs: the
    // toolchain's check; toDiagnosticsMs: from the key to the diagnostics
    // handed to the editor; toPaintMs (below): to the next frame.
    const key = { inputMs: changedAt - lastKeyAt, checkMs: result.checkMs, toDiagnosticsMs: t2 - lastKeyAt, lines: state.doc.lines };
    lastKeyAt = null;
    timings.keystrokes.push(key);
    requestAnimationFrame(() => {
      key.toPaintMs = performance.now() - (t2 - key.toDiagnosticsMs);
    });
  }
}

/** Says in the status line that the toolchain failed. */
function showFailure(err) {
  firstCheckDone();
  $("status").textContent = "The toolchain failed: " + err.message;
  $("status").className = "status error";
  console.error(err);
}

function showStatus(result, ms) {
  const parts = [];
  if (result.errors) {
    parts.push(`${result.errors} error${result.errors === 1 ? "" : "s"}`);
  }
  if (result.warnings) {
    parts.push(`${result.warnings} warning${result.warnings === 1 ? "" : "s"}`);
  }
  const status = $("status");
  status.textContent = (parts.length ? parts.join(", ") : "no problems") + ` · checked in ${ms.toFixed(1)} ms`;
  status.className = result.errors ? "status error" : result.warnings ? "status warning" : "status ok";
}

// Panes: only the one shown is computed, a moment after the last change.
let pane = "schema";
let paneTimer = null;

// paneRun counts the panes' updates: an answer for an older one is dropped.
let paneRun = 0;

async function updatePane() {
  paneTimer = null;
  if (!gram || !view) {
    return;
  }
  const run = ++paneRun;
  const shown = pane;
  const text = view.state.doc.toString();
  let out;
  try {
    if (shown === "schema") {
      const agent = await updateAgents(text, run);
      if (agent === null) {
        return;
      }
      out = agent
        ? await gram.agentSchema(text, agent, $("target").value, $("strict").checked)
        : await gram.schema(text, $("target").value, $("strict").checked);
    } else if (shown === "format") {
      out = await gram.format(text);
    } else {
      out = await gram.tree(text);
    }
  } catch (err) {
    out = { error: "The toolchain failed: " + err.message };
  }
  if (run !== paneRun) {
    return;
  }
  const pre = $(`out-${shown}`);
  const err = $(`err-${shown}`);
  pre.textContent = out.text ?? "";
  err.textContent = out.error ?? "";
  err.hidden = !out.error;
  pre.dataset.ready = String(playground.checks);
}

// updateAgents fills the agent menu of the schema pane with the agents of
// text, each with the signature its callers see, and returns the agent
// chosen ("" for every tool), kept while the text has it; null when a
// newer update of the panes began meanwhile.
async function updateAgents(text, run) {
  const agents = await gram.agents(text);
  if (run !== paneRun) {
    return null;
  }
  const menu = $("agent");
  const chosen = menu.value;
  const options = [["", "every tool"], ...agents.map((a) => [a.name, `${a.name} ${a.signature}`])];
  const same =
    menu.options.length === options.length &&
    options.every(([value, label], i) => menu.options[i].value === value && menu.options[i].textContent === label);
  if (!same) {
    menu.replaceChildren(
      ...options.map(([value, label]) => {
        const o = document.createElement("option");
        o.value = value;
        o.textContent = label;
        return o;
      }),
    );
    menu.value = agents.some((a) => a.name === chosen) ? chosen : "";
  }
  return menu.value;
}

function schedulePane(delay = 120) {
  clearTimeout(paneTimer);
  paneTimer = setTimeout(updatePane, delay);
}

function showPane(name) {
  pane = name;
  for (const b of document.querySelectorAll("[data-pane]")) {
    const on = b.dataset.pane === name;
    b.setAttribute("aria-selected", String(on));
    $(`pane-${b.dataset.pane}`).hidden = !on;
  }
  schedulePane(0);
}

// Hover and completion ask the toolchain about the text as it is.
const gramHover = hoverTooltip(async (v, pos) => {
  if (!gram) {
    return null;
  }
  const doc = v.state.doc;
  const at = positionOf(doc, pos);
  const h = await gram.hover(doc.toString(), at.line, at.character);
  if (!h || v.state.doc !== doc) {
    return null;
  }
  return {
    pos: offsetOf(doc, h.range.start),
    end: offsetOf(doc, h.range.end),
    above: true,
    create: () => {
      const dom = renderMarkdown(h.markdown);
      dom.classList.add("gram-hover");
      return { dom };
    },
  };
});

const completionTypes = {
  keyword: "keyword",
  type: "type",
  record: "class",
  property: "property",
  value: "constant",
  agent: "class",
  model: "text",
  function: "function",
  reference: "variable",
  snippet: "text",
};

async function gramCompletions(context) {
  if (!gram) {
    return null;
  }
  const word = context.matchBefore(/[\w.@\-/]+$/);
  const before = context.state.sliceDoc(Math.max(0, context.pos - 1), context.pos);
  if (!context.explicit && !word && !/[:"|]/.test(before)) {
    return null;
  }
  const doc = context.state.doc;
  const p = positionOf(doc, context.pos);
  const r = await gram.complete(doc.toString(), p.line, p.character);
  if (!r.items.length || context.aborted || context.state.doc !== doc) {
    return null;
  }
  const options = r.items.map((it, i) => {
    const base = {
      label: it.label,
      detail: it.detail,
      type: completionTypes[it.kind] ?? "text",
      boost: -i / 1000,
      info: it.doc ? () => renderMarkdown(it.doc) : undefined,
    };
    return it.snippet ? snippetCompletion(it.insert, base) : { ...base, apply: it.insert };
  });
  return { from: offsetOf(doc, r.range.start), to: offsetOf(doc, r.range.end), options };
}

function setText(text) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, selection: { anchor: 0 }, scrollIntoView: true });
}

async function share() {
  const fragment = await encodeFragment(view.state.doc.toString());
  history.replaceState(null, "", "#" + fragment);
  const url = location.href;
  const input = $("share-url");
  input.value = url;
  input.hidden = false;
  input.select();
  try {
    await navigator.clipboard.writeText(url);
    $("share-note").textContent = "Link copied";
  } catch {
    $("share-note").textContent = "Copy the link";
  }
}

async function main() {
  timings.start = performance.now();
  const gramLoaded = loadGram().then((g) => {
    timings.wasmReady = performance.now();
    return g;
  });
  const examples = await fetch("examples.json").then((r) => r.json());
  const menu = $("examples");
  for (const ex of examples) {
    const o = document.createElement("option");
    o.value = ex.name;
    o.textContent = ex.name;
    menu.append(o);
  }
  const shared = location.hash ? await decodeFragment(location.hash) : null;
  const first = examples.find((e) => e.name === "hello.gram") ?? examples[0];
  const initial = shared ?? first?.text ?? "";
  if (!shared && first) {
    menu.value = first.name;
  }

  view = new EditorView({
    parent: $("editor"),
    state: EditorState.create({
      doc: initial,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        undoHistory(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        highlightActiveLine(),
        highlightSelectionMatches(),
        gramLanguage,
        gramHighlight,
        lintGutter(),
        gramHover,
        autocompletion({ override: [gramCompletions] }),
        keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap, ...lintKeymap, ...searchKeymap, indentWithTab]),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) {
            changedAt = performance.now();
            queueMicrotask(check);
            schedulePane();
          }
        }),
        EditorView.domEventHandlers({
          keydown: (e) => {
            // When the key was pressed, on the clock of performance.now().
            lastKeyAt = e.timeStamp;
          },
        }),
      ],
    }),
  });

  playground.view = view;

  menu.addEventListener("change", () => {
    const ex = examples.find((e) => e.name === menu.value);
    if (ex) {
      history.replaceState(null, "", location.pathname);
      setText(ex.text);
      view.focus();
    }
  });
  for (const b of document.querySelectorAll("[data-pane]")) {
    b.addEventListener("click", () => showPane(b.dataset.pane));
  }
  $("target").addEventListener("change", () => schedulePane(0));
  $("agent").addEventListener("change", () => schedulePane(0));
  $("strict").addEventListener("change", () => schedulePane(0));
  $("share").addEventListener("click", share);
  $("apply-format").addEventListener("click", async () => {
    const text = view.state.doc.toString();
    const out = await gram?.format(text).catch(showFailure);
    // Only onto the text it formatted: an edit made meanwhile is kept.
    if (out && !out.error && out.text !== text && view.state.doc.toString() === text) {
      setText(out.text);
    }
  });
  window.addEventListener("hashchange", async () => {
    const text = await decodeFragment(location.hash);
    if (text !== null && text !== view.state.doc.toString()) {
      setText(text);
    }
  });

  gram = await gramLoaded;
  for (const t of gram.targets) {
    const o = document.createElement("option");
    o.value = t;
    o.textContent = t;
    $("target").append(o);
  }
  $("version").textContent = `gram ${gram.version}`;
  check();
  showPane(pane);
  playground.ready = true;
  document.body.dataset.ready = "true";

  if ("serviceWorker" in navigator) {
    await firstChecked;
    navigator.serviceWorker.register("sw.js").catch((err) => {
      console.warn("gram playground: no offline copy:", err);
    });
  }
}

main().catch((err) => {
  $("status").textContent = "The playground failed to start: " + err.message;
  $("status").className = "status error";
  console.error(err);
});
