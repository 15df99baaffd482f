// The Gram extension: starts gram-lsp over stdio for .gram files, shows its
// state in a language status item, and adds the commands "Gram: Restart
// Language Server", "Gram: Show Tool Schema" and "Gram: Show Language Server
// Output".

import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import {
  isSchemaFormat,
  missingServerMessage,
  onToolOrAgent,
  OutlineSymbol,
  resolveServer,
  SchemaFormat,
  schemaFormats,
  serverSettings,
} from "./server";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let status: vscode.LanguageStatusItem;
/** Set while the extension itself stops the server, so a stop is not taken for a crash. */
let stopping = false;

/**
 * The server command behind "Show Tool Schema": it takes the document URI, a
 * position, a format and strict, and answers with the JSON Schema of the tool
 * there, the schemas of the agent's tools, or null.
 */
const schemaCommand = "gram.toolSchema";

/** The context key that shows "Show Tool Schema" in the editor's context menu. */
const contextKey = "gram.onToolOrAgent";

/** Fetches the outline of the active gram document again (set by trackToolOrAgent). */
let refreshOutline: () => void = () => {};

type ServerState = "starting" | "running" | "stopped" | "crashed" | "missing";

/** Shows the server's state in the language status item. */
function showState(state: ServerState, detail?: string): void {
  const version = client?.initializeResult?.serverInfo?.version;
  const name = "gram-lsp" + (version ? " " + version : "");
  status.busy = state === "starting";
  switch (state) {
    case "starting":
      status.text = `${name} starting`;
      status.severity = vscode.LanguageStatusSeverity.Information;
      status.command = { title: "Show Output", command: "gram.showOutput" };
      break;
    case "running":
      status.text = `${name} running`;
      status.severity = vscode.LanguageStatusSeverity.Information;
      status.command = { title: "Show Output", command: "gram.showOutput" };
      break;
    case "stopped":
      status.text = `${name} stopped`;
      status.severity = vscode.LanguageStatusSeverity.Warning;
      status.command = { title: "Restart", command: "gram.restartServer" };
      break;
    case "crashed":
      status.text = `${name} crashed`;
      status.severity = vscode.LanguageStatusSeverity.Error;
      status.command = { title: "Restart", command: "gram.restartServer" };
      break;
    case "missing":
      status.text = "gram-lsp not found";
      status.severity = vscode.LanguageStatusSeverity.Error;
      status.command = { title: "Open Settings", command: "workbench.action.openSettings", arguments: ["gram.server.path"] };
      break;
  }
  status.detail = detail;
}

async function reportMissing(command: string): Promise<void> {
  const open = "Open Settings";
  const choice = await vscode.window.showErrorMessage(missingServerMessage(command), open);
  if (choice === open) {
    await vscode.commands.executeCommand("workbench.action.openSettings", "gram.server.path");
  }
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const config = vscode.workspace.getConfiguration("gram");
  const settings = serverSettings((key) => config.inspect(key), vscode.workspace.isTrusted);
  for (const key of settings.ignored) {
    output.appendLine(`Restricted Mode: the workspace's ${key} is ignored until you trust this workspace.`);
  }
  const server = resolveServer(settings, context.extensionPath, {
    pathEnv: process.env.PATH ?? "",
    platform: process.platform,
  });
  if (!server.found) {
    output.appendLine(`gram-lsp not found: ${server.command}`);
    showState("missing", server.command);
    void reportMissing(server.command);
    return;
  }
  output.appendLine(`Starting ${server.command} ${server.args.join(" ")} (${server.source})`);
  const where = { setting: "from gram.server.path", path: "from the PATH", bundled: "bundled", none: "" }[server.source];
  const serverOptions: ServerOptions = {
    command: server.command,
    args: server.args,
    transport: TransportKind.stdio,
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "gram" },
      { scheme: "untitled", language: "gram" },
    ],
    outputChannel: output,
    synchronize: {
      // The agent files of packages, and the mcp.json files that bindings
      // files name: a change of one on disk is checked again.
      fileEvents: [
        vscode.workspace.createFileSystemWatcher("**/*.gram"),
        vscode.workspace.createFileSystemWatcher("**/mcp.json"),
      ],
    },
  };
  // The client reads the "gram.trace.server" setting by its id.
  const c = new LanguageClient("gram", "Gram", serverOptions, clientOptions);
  client = c;
  c.onDidChangeState((e) => {
    if (client !== c) {
      return;
    }
    if (e.newState === State.Running) {
      showState("running", where);
      refreshOutline();
    } else if (e.newState === State.Starting) {
      showState("starting", where);
    } else if (e.newState === State.Stopped) {
      showState(stopping ? "stopped" : "crashed", where);
    }
  });
  showState("starting", where);
  try {
    await c.start();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    output.appendLine(`gram-lsp failed to start: ${message}`);
    showState("crashed", message);
    void vscode.window.showErrorMessage(`Gram: the language server failed to start: ${message}`);
    client = undefined;
  }
}

async function stopClient(): Promise<void> {
  if (client) {
    const c = client;
    stopping = true;
    try {
      await c.stop();
    } catch (err) {
      output.appendLine(`gram-lsp did not stop cleanly: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      stopping = false;
      client = undefined;
      showState("stopped");
    }
  }
}

interface SchemaChoice {
  format: SchemaFormat;
  strict: boolean;
}

/** Asks for the format and strictness, offering the last choice first. */
async function pickSchema(context: vscode.ExtensionContext): Promise<SchemaChoice | undefined> {
  const last = context.workspaceState.get<SchemaChoice>("gram.schemaChoice");
  const formats = [...schemaFormats].sort((a, b) => Number(b.id === last?.format) - Number(a.id === last?.format));
  const format = await vscode.window.showQuickPick(
    formats.map((f) => ({ label: f.label, description: f.id, detail: f.detail, id: f.id })),
    { title: "Gram: Show Tool Schema (1/2)", placeHolder: "Schema format" },
  );
  if (!format) {
    return undefined;
  }
  const modes = [
    { label: "Not strict", detail: "optional parameters may be left out", strict: false },
    {
      label: "Strict",
      detail: "OpenAI's strict mode: every parameter required (optional ones nullable), no other properties",
      strict: true,
    },
  ];
  if (last?.strict) {
    modes.reverse();
  }
  const mode = await vscode.window.showQuickPick(modes, { title: "Gram: Show Tool Schema (2/2)", placeHolder: "Strict mode" });
  if (!mode) {
    return undefined;
  }
  const choice = { format: format.id, strict: mode.strict };
  await context.workspaceState.update("gram.schemaChoice", choice);
  return choice;
}

/**
 * "Gram: Show Tool Schema": the schema of the tool (or the agent's tools) at
 * the cursor in a new JSON document. A format and strict may be passed as
 * arguments (as keybindings can); otherwise the user picks them.
 */
async function showToolSchema(context: vscode.ExtensionContext, ...args: unknown[]): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "gram") {
    void vscode.window.showInformationMessage("Gram: open a .gram file and put the cursor on a tool or an agent.");
    return;
  }
  if (!client || !client.isRunning()) {
    void vscode.window.showErrorMessage("Gram: the language server is not running. Run Gram: Restart Language Server.");
    return;
  }
  const c = client;
  let choice: SchemaChoice | undefined;
  if (isSchemaFormat(args[0])) {
    choice = { format: args[0], strict: args[1] === true };
  } else {
    choice = await pickSchema(context);
  }
  if (!choice) {
    return;
  }
  const position = c.code2ProtocolConverter.asPosition(editor.selection.active);
  const result: unknown = await c.sendRequest(ExecuteCommandRequest.type, {
    command: schemaCommand,
    arguments: [editor.document.uri.toString(), position, choice.format, choice.strict],
  });
  if (result === null || result === undefined) {
    void vscode.window.showInformationMessage("Gram: no tool or agent at the cursor.");
    return;
  }
  const content = typeof result === "string" ? result : JSON.stringify(result, null, 2) + "\n";
  const uri = schemaDocs.put(editor.document.uri, position, choice, content);
  const doc = await vscode.workspace.openTextDocument(uri);
  if (doc.languageId !== "json") {
    await vscode.languages.setTextDocumentLanguage(doc, "json");
  }
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

/**
 * The schemas shown by "Show Tool Schema", as read-only documents of the
 * gram-schema scheme: closing one never asks to save it.
 */
class SchemaDocuments implements vscode.TextDocumentContentProvider {
  static readonly scheme = "gram-schema";
  private readonly docs = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  /** Stores a schema and returns the URI of its document. */
  put(source: vscode.Uri, pos: { line: number; character: number }, choice: SchemaChoice, content: string): vscode.Uri {
    const base = source.path.split("/").pop()?.replace(/\.gram$/, "") || "schema";
    const name = `${base}-${pos.line + 1}-${pos.character + 1}.${choice.format}${choice.strict ? ".strict" : ""}.json`;
    const uri = vscode.Uri.from({ scheme: SchemaDocuments.scheme, path: "/" + name, query: source.toString() });
    this.docs.set(uri.toString(), content);
    this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.toString()) ?? "";
  }

  dispose(): void {
    this.changed.dispose();
    this.docs.clear();
  }
}

const schemaDocs = new SchemaDocuments();

/**
 * Keeps the context key that shows "Show Tool Schema" in the editor's context
 * menu: true when the cursor is in an agent or a tool of the outline. The
 * outline is fetched when a document changes, so moving the cursor only reads
 * it.
 */
function trackToolOrAgent(context: vscode.ExtensionContext): void {
  /** The outline of each gram document, with the version it is of and when it was fetched. */
  const outlines = new Map<string, { version: number; at: number; symbols: OutlineSymbol[] }>();
  let pending: ReturnType<typeof setTimeout> | undefined;

  const update = (editor: vscode.TextEditor | undefined) => {
    let on = false;
    if (editor && editor.document.languageId === "gram") {
      const doc = editor.document;
      const outline = outlines.get(doc.uri.toString());
      if (outline) {
        on = onToolOrAgent(outline.symbols, editor.selection.active);
      }
      // An outline that is missing, out of date, or empty because the server
      // was not ready yet, is fetched again.
      if (!outline || outline.version !== doc.version || (outline.symbols.length === 0 && Date.now() - outline.at > 1000)) {
        refresh(doc);
      }
    }
    void vscode.commands.executeCommand("setContext", contextKey, on);
  };

  const refresh = (doc: vscode.TextDocument) => {
    if (doc.languageId !== "gram") {
      return;
    }
    clearTimeout(pending);
    pending = setTimeout(async () => {
      const version = doc.version;
      let symbols: OutlineSymbol[] = [];
      try {
        symbols =
          (await vscode.commands.executeCommand<vscode.DocumentSymbol[]>("vscode.executeDocumentSymbolProvider", doc.uri)) ?? [];
      } catch {
        // no outline yet
      }
      outlines.set(doc.uri.toString(), { version, at: Date.now(), symbols });
      const editor = vscode.window.activeTextEditor;
      if (editor?.document === doc && doc.version === version) {
        update(editor);
      }
    }, 200);
  };

  context.subscriptions.push(
    vscode.window.onDidChangeTextEditorSelection((e) => update(e.textEditor)),
    vscode.window.onDidChangeActiveTextEditor((e) => update(e)),
    vscode.workspace.onDidChangeTextDocument((e) => refresh(e.document)),
    vscode.workspace.onDidCloseTextDocument((doc) => outlines.delete(doc.uri.toString())),
    { dispose: () => clearTimeout(pending) },
  );
  refreshOutline = () => {
    if (vscode.window.activeTextEditor) {
      refresh(vscode.window.activeTextEditor.document);
    }
  };
  refreshOutline();
}

/** Activates the extension when a gram file is opened. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("Gram");
  status = vscode.languages.createLanguageStatusItem("gram.server", { language: "gram" });
  status.name = "Gram Language Server";
  showState("stopped");
  context.subscriptions.push(
    output,
    status,
    schemaDocs,
    vscode.workspace.registerTextDocumentContentProvider(SchemaDocuments.scheme, schemaDocs),
    vscode.commands.registerCommand("gram.restartServer", async () => {
      await stopClient();
      await startClient(context);
    }),
    vscode.commands.registerCommand("gram.showToolSchema", (...args: unknown[]) => showToolSchema(context, ...args)),
    vscode.commands.registerCommand("gram.showOutput", () => output.show(true)),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("gram.server")) {
        await stopClient();
        await startClient(context);
      }
    }),
    // Trusting the workspace may change which server runs.
    vscode.workspace.onDidGrantWorkspaceTrust(async () => {
      await stopClient();
      await startClient(context);
    }),
  );
  trackToolOrAgent(context);
  await startClient(context);
}

/** Stops the language server. */
export async function deactivate(): Promise<void> {
  await stopClient();
}
