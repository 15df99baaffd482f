// Starts the toolchain while the rest of the page loads: index.html runs
// this classic script before the page's module (app.js), so the worker
// (worker.js) fetches, compiles and starts gram.wasm while app.js is still
// downloading and setting up the editor. gram.js talks to
// globalThis.gramWorker; a failure to load the worker before then is kept
// in its failure.
globalThis.gramWorker = new Worker("worker.js");
globalThis.gramWorker.failure = null;
globalThis.gramWorker.addEventListener("error", (event) => {
  globalThis.gramWorker.failure ??= event.message || "worker.js could not be loaded";
});
