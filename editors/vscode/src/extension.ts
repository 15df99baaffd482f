// The Gram extension: starts gram-lsp over stdio for .gram files and adds two
// commands, "Gram: Restart Language Server" and "Gram: Show Tool Schema".

import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;

/**
 * The server command behind "Show Tool Schema": it takes the document URI and
 * a position, and answers with the JSON Schema of the tool there (or null).
 */
const schemaCommand = "gram.toolSchema";

/** Finds an executable on the PATH, or returns undefined. */
function onPath(name: string): string | undefined {
  const dirs = (process.env.PATH ?? "").split(path.delimiter);
  const exts = process.platform === "win32" ? [".exe", ".cmd", ""] : [""];
  for (const dir of dirs) {
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

/** Restores the executable bit, which unpacking a package may drop. */
function ensureExecutable(file: string): void {
  if (process.platform === "win32") {
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

/**
 * Resolves the server command from the settings: an explicit path, gram-lsp on
 * the PATH, or the binary bundled in the platform package.
 */
function resolveServer(context: vscode.ExtensionContext): { command: string; args: string[]; found: boolean } {
  const config = vscode.workspace.getConfiguration("gram");
  const setting = config.get<string>("server.path", "gram-lsp").trim() || "gram-lsp";
  const args = config.get<string[]>("server.args", []);
  if (path.isAbsolute(setting) || setting.includes(path.sep)) {
    return { command: setting, args, found: fs.existsSync(setting) };
  }
  const found = onPath(setting);
  if (found) {
    return { command: found, args, found: true };
  }
  if (setting === "gram-lsp") {
    const bundled = context.asAbsolutePath(path.join("bin", process.platform === "win32" ? "gram-lsp.exe" : "gram-lsp"));
    if (fs.existsSync(bundled)) {
      ensureExecutable(bundled);
      return { command: bundled, args, found: true };
    }
  }
  return { command: setting, args, found: false };
}

async function reportMissing(command: string): Promise<void> {
  const open = "Open Settings";
  const choice = await vscode.window.showErrorMessage(
    `Gram: the language server "${command}" was not found. Install it with ` +
      "`go install github.com/gramlang/gram/cmd/gram-lsp@latest`, or set gram.server.path to its location.",
    open,
  );
  if (choice === open) {
    await vscode.commands.executeCommand("workbench.action.openSettings", "gram.server.path");
  }
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const server = resolveServer(context);
  if (!server.found) {
    output.appendLine(`gram-lsp not found: ${server.command}`);
    await reportMissing(server.command);
    return;
  }
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
      fileEvents: vscode.workspace.createFileSystemWatcher("**/*.gram"),
    },
  };
  // The client reads the "gram.trace.server" setting by its id.
  client = new LanguageClient("gram", "Gram", serverOptions, clientOptions);
  try {
    await client.start();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    output.appendLine(`gram-lsp failed to start: ${message}`);
    void vscode.window.showErrorMessage(`Gram: the language server failed to start: ${message}`);
    client = undefined;
  }
}

async function stopClient(): Promise<void> {
  if (client) {
    const c = client;
    client = undefined;
    await c.stop();
  }
}

async function showToolSchema(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "gram") {
    void vscode.window.showInformationMessage("Gram: open a .gram file and put the cursor on a tool.");
    return;
  }
  if (!client) {
    void vscode.window.showErrorMessage("Gram: the language server is not running.");
    return;
  }
  const position = client.code2ProtocolConverter.asPosition(editor.selection.active);
  const result: unknown = await client.sendRequest(ExecuteCommandRequest.type, {
    command: schemaCommand,
    arguments: [editor.document.uri.toString(), position],
  });
  if (result === null || result === undefined) {
    void vscode.window.showInformationMessage("Gram: no tool at the cursor.");
    return;
  }
  const content = typeof result === "string" ? result : JSON.stringify(result, null, 2);
  const doc = await vscode.workspace.openTextDocument({ language: "json", content });
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

/** Activates the extension when a gram file is opened. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("Gram");
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("gram.restartServer", async () => {
      await stopClient();
      await startClient(context);
    }),
    vscode.commands.registerCommand("gram.showToolSchema", showToolSchema),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("gram.server")) {
        await stopClient();
        await startClient(context);
      }
    }),
  );
  await startClient(context);
}

/** Stops the language server. */
export async function deactivate(): Promise<void> {
  await stopClient();
}
