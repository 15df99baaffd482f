// Which gram-lsp to start, from the settings, the workspace's trust, the PATH
// and the extension's own files. Nothing here imports vscode, so the unit tests
// run it under plain Node.

import * as fs from "fs";
import * as path from "path";

/** What VS Code's WorkspaceConfiguration.inspect returns for one setting. */
export interface Inspected<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/** The server settings in effect, and the workspace values that were ignored. */
export interface ServerSettings {
  path: string;
  args: string[];
  /** Settings whose workspace value was ignored because the workspace is not trusted. */
  ignored: string[];
}

/** The default of gram.server.path: gram-lsp from the PATH or the bundled one. */
export const defaultServer = "gram-lsp";

/**
 * Picks the value of a setting. In a trusted workspace the most specific
 * value wins (folder, workspace, user, default); in an untrusted one the
 * workspace and folder values are skipped, so a workspace cannot choose the
 * program that runs. ignored is set when a skipped value existed.
 */
export function effective<T>(v: Inspected<T> | undefined, trusted: boolean, fallback: T): { value: T; ignored: boolean } {
  if (!v) {
    return { value: fallback, ignored: false };
  }
  const user = v.globalValue ?? v.defaultValue ?? fallback;
  if (trusted) {
    return { value: v.workspaceFolderValue ?? v.workspaceValue ?? user, ignored: false };
  }
  const ignored = v.workspaceFolderValue !== undefined || v.workspaceValue !== undefined;
  return { value: user, ignored };
}

/** Reads gram.server.path and gram.server.args, honouring workspace trust. */
export function serverSettings(
  inspect: (key: "server.path" | "server.args") => Inspected<unknown> | undefined,
  trusted: boolean,
): ServerSettings {
  const ignored: string[] = [];
  const p = effective(inspect("server.path") as Inspected<string> | undefined, trusted, defaultServer);
  if (p.ignored) {
    ignored.push("gram.server.path");
  }
  const a = effective(inspect("server.args") as Inspected<string[]> | undefined, trusted, []);
  if (a.ignored) {
    ignored.push("gram.server.args");
  }
  const file = typeof p.value === "string" && p.value.trim() !== "" ? p.value.trim() : defaultServer;
  const args = Array.isArray(a.value) ? a.value.filter((x): x is string => typeof x === "string") : [];
  return { path: file, args, ignored };
}

/** Where to look for programs: the PATH and the platform. */
export interface Host {
  pathEnv: string;
  platform: NodeJS.Platform;
}

/** Finds an executable on the PATH, or returns undefined. */
export function onPath(name: string, host: Host): string | undefined {
  const exts = host.platform === "win32" ? [".exe", ".cmd", ""] : [""];
  for (const dir of host.pathEnv.split(host.platform === "win32" ? ";" : ":")) {
    if (!dir) {
      continue;
    }
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        if (fs.statSync(candidate).isFile()) {
          return candidate;
        }
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/** The server command to start; found is false when there is none. */
export interface Resolved {
  command: string;
  args: string[];
  found: boolean;
  /** Where the command came from: the setting, the PATH or the bundle. */
  source: "setting" | "path" | "bundled" | "none";
}

/**
 * Resolves the server: an explicit path, the named program on the PATH, or
 * (for the default name, or a name not on the PATH) the gram-lsp bundled in
 * the platform package under extensionDir/bin.
 */
export function resolveServer(settings: ServerSettings, extensionDir: string, host: Host): Resolved {
  const setting = settings.path;
  const args = settings.args;
  if (path.isAbsolute(setting) || setting.includes("/") || setting.includes("\\")) {
    return { command: setting, args, found: fs.existsSync(setting), source: fs.existsSync(setting) ? "setting" : "none" };
  }
  const found = onPath(setting, host);
  if (found) {
    return { command: found, args, found: true, source: "path" };
  }
  if (setting === defaultServer || setting === defaultServer + ".exe") {
    const bundled = path.join(extensionDir, "bin", host.platform === "win32" ? "gram-lsp.exe" : "gram-lsp");
    if (fs.existsSync(bundled)) {
      ensureExecutable(bundled, host);
      return { command: bundled, args, found: true, source: "bundled" };
    }
  }
  return { command: setting, args, found: false, source: "none" };
}

/** Restores the executable bit, which unpacking a package may drop. */
function ensureExecutable(file: string, host: Host): void {
  if (host.platform === "win32") {
    return;
  }
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    try {
      fs.chmodSync(file, 0o755);
    } catch {
      // starting it reports the problem
    }
  }
}

/** The message shown when no server was found: what to install and where to point. */
export function missingServerMessage(command: string): string {
  return (
    `Gram: the language server "${command}" was not found. Install it with ` +
    "`go install github.com/gramlang/gram/cmd/gram-lsp@latest`, or set gram.server.path to its location."
  );
}

/** The formats of "Show Tool Schema", as the server names them. */
export const schemaFormats = [
  { id: "openai", label: "OpenAI", detail: "an entry of the tools array of a chat completion request" },
  { id: "mcp", label: "MCP", detail: "a tool as tools/list returns it: name, description, inputSchema" },
  { id: "jsonschema", label: "JSON Schema", detail: "a draft 2020-12 schema of the arguments" },
] as const;

/** A format name the server accepts. */
export type SchemaFormat = (typeof schemaFormats)[number]["id"];

/** Reports whether s names a schema format. */
export function isSchemaFormat(s: unknown): s is SchemaFormat {
  return schemaFormats.some((f) => f.id === s);
}

/** A symbol as the outline gives it: a kind, a range and children. */
export interface OutlineSymbol {
  kind: number;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  children?: OutlineSymbol[];
}

/** The outline kinds gram-lsp gives agents (Class) and tools (Function), as VS Code numbers them. */
export const agentOrToolKinds = new Set([4, 11]);

/** Reports whether pos lies in an agent or a tool of the outline. */
export function onToolOrAgent(symbols: readonly OutlineSymbol[], pos: { line: number; character: number }): boolean {
  const before = (a: { line: number; character: number }, b: { line: number; character: number }) =>
    a.line < b.line || (a.line === b.line && a.character <= b.character);
  for (const s of symbols) {
    if (!before(s.range.start, pos) || !before(pos, s.range.end)) {
      continue;
    }
    if (agentOrToolKinds.has(s.kind) || onToolOrAgent(s.children ?? [], pos)) {
      return true;
    }
  }
  return false;
}
