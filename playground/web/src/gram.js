// The toolchain in the page: Go's wasm_exec.js (loaded by index.html)
// runs gram.wasm, whose main sets globalThis.gram (see
// playground/wasm/main.go). This module waits for it and wraps its
// functions, which answer JSON strings, in ones that answer objects.

/** Loads gram.wasm; resolves to the toolchain's API. */
export async function loadGram(url = "gram.wasm") {
  const go = new globalThis.Go();
  const ready = new Promise((resolve) => {
    globalThis.gramReady = resolve;
  });
  const response = fetch(url);
  let instance;
  try {
    ({ instance } = await WebAssembly.instantiateStreaming(response, go.importObject));
  } catch {
    // A server that does not say application/wasm: compile from the bytes.
    const bytes = await (await fetch(url)).arrayBuffer();
    ({ instance } = await WebAssembly.instantiate(bytes, go.importObject));
  }
  go.run(instance);
  await ready;
  const g = globalThis.gram;
  const call = (name) => (...args) => JSON.parse(g[name](...args));
  return {
    version: g.version,
    targets: [...g.targets],
    check: call("check"),
    schema: call("schema"),
    agents: call("agents"),
    agentSchema: call("agentSchema"),
    format: call("format"),
    tree: call("tree"),
    hover: call("hover"),
    complete: call("complete"),
  };
}
