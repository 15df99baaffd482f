// The toolchain in the page: worker.js runs gram.wasm in a worker that
// boot.js starts (see playground/wasm/main.go for the functions). This
// module sends it requests and answers promises of objects; the worker
// answers in the order it was asked.

/**
 * Waits for the toolchain in the worker boot.js started; resolves to its
 * API, each function answering a promise. check's answer also carries
 * checkMs, the milliseconds the check itself took in the worker.
 */
export async function loadGram(worker = globalThis.gramWorker) {
  let next = 0;
  const pending = new Map();
  let failed = worker.failure ? new Error(`the toolchain's worker failed: ${worker.failure}`) : null;
  worker.onmessage = (event) => {
    const { id, answer, error, ms } = event.data;
    const p = pending.get(id);
    pending.delete(id);
    try {
      if (error !== undefined) {
        throw new Error(error);
      }
      p?.resolve({ value: JSON.parse(answer), ms });
    } catch (err) {
      p?.reject(err);
    }
  };
  worker.onerror = (event) => {
    event.preventDefault();
    failed = new Error(`the toolchain's worker failed: ${event.message || "it could not be loaded"}`);
    for (const p of pending.values()) {
      p.reject(failed);
    }
    pending.clear();
  };
  const ask = (name, args) =>
    new Promise((resolve, reject) => {
      if (failed) {
        reject(failed);
        return;
      }
      const id = next++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, name, args });
    });
  const call =
    (name) =>
    async (...args) =>
      (await ask(name, args)).value;
  const info = await call("info")();
  return {
    version: info.version,
    targets: info.targets,
    check: async (text) => {
      const { value, ms } = await ask("check", [text]);
      return { ...value, checkMs: ms };
    },
    schema: call("schema"),
    agents: call("agents"),
    agentSchema: call("agentSchema"),
    format: call("format"),
    tree: call("tree"),
    hover: call("hover"),
    complete: call("complete"),
  };
}
