// The toolchain's worker: it runs gram.wasm (whose main sets
// globalThis.gram, see playground/wasm/main.go) off the page's thread, so
// that fetching, compiling and starting the module go on while the page
// loads its editor, and a check never holds up typing. boot.js starts it
// before the page's module loads; gram.js talks to it.
//
// The module comes as gram.wasm.gz, a quarter of its size, and is
// decompressed here as it arrives and compiled as it is decompressed:
// moving 8 MB from the network to the page costs more than inflating 2 MB.
// gram.wasm is the fallback, for a browser without DecompressionStream.
//
// A request is {id, name, args}: name is one of the toolchain's functions,
// or "info" for its version and targets. The answer is {id, answer, ms}:
// the function's JSON string and the milliseconds it took; or {id, error}.
//
// build.mjs puts Go's wasm_exec.js, which defines globalThis.Go, in front
// of this file in the built worker.js.

/** The module's bytes as a response that says application/wasm. */
async function wasmResponse() {
  if (typeof DecompressionStream === "function") {
    const gz = await fetch("gram.wasm.gz");
    if (gz.ok) {
      // A server that marks .gz files as gzip-encoded has the browser
      // inflate them already.
      const body = /gzip/.test(gz.headers.get("Content-Encoding") ?? "") ? gz.body : gz.body.pipeThrough(new DecompressionStream("gzip"));
      return new Response(body, { headers: { "Content-Type": "application/wasm" } });
    }
  }
  const response = await fetch("gram.wasm");
  if (!response.ok) {
    throw new Error(`gram.wasm: the server answered ${response.status}`);
  }
  // A server that does not say application/wasm: say it here.
  return new Response(response.body, { headers: { "Content-Type": "application/wasm" } });
}

const toolchain = (async () => {
  const go = new globalThis.Go();
  const ready = new Promise((resolve) => {
    globalThis.gramReady = resolve;
  });
  const { instance } = await WebAssembly.instantiateStreaming(wasmResponse(), go.importObject);
  go.run(instance);
  await ready;
  return globalThis.gram;
})();

const functions = new Set(["check", "schema", "agents", "agentSchema", "format", "tree", "hover", "complete"]);

onmessage = async (event) => {
  const { id, name, args } = event.data;
  try {
    const gram = await toolchain;
    if (name === "info") {
      postMessage({ id, answer: JSON.stringify({ version: gram.version, targets: [...gram.targets] }), ms: 0 });
      return;
    }
    if (!functions.has(name)) {
      throw new Error(`the toolchain has no function ${name}`);
    }
    const t0 = performance.now();
    const answer = gram[name](...args);
    postMessage({ id, answer, ms: performance.now() - t0 });
  } catch (err) {
    postMessage({ id, error: String(err?.message ?? err) });
  }
};
