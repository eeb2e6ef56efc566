// The LMML extension: the `lmml` language for .lmml files, the language server (`lmml lsp`)
// started with the configured interpreter or command, and a preview beside the editor that
// the server renders (its `lmml/preview` request).

import * as os from "node:os";
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";
import { serverCommand } from "./command";

const LANGUAGE = "lmml";
const PREVIEW_METHOD = "lmml/preview";
const PREVIEW_DELAY_MS = 300;

interface PreviewResult {
  uri: string;
  version: number | null;
  html: string;
  error: string | null;
}

let client: LanguageClient | undefined;
let watcher: vscode.FileSystemWatcher | undefined;
let preview: Preview | undefined;

async function startClient(): Promise<void> {
  const config = vscode.workspace.getConfiguration("lmml.server");
  const { command, args } = serverCommand(config, {
    workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    userHome: os.homedir(),
  });
  // No transport named: stdio, without the `--stdio` flag the client would add for one.
  const serverOptions: ServerOptions = { command, args };
  watcher = vscode.workspace.createFileSystemWatcher("**/*");
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: LANGUAGE }],
    initializationOptions: { debounce: config.get<number>("debounce", 0.3) },
    // Assets appear and vanish beside the narrative: the server checks references again.
    synchronize: { fileEvents: watcher },
  };
  client = new LanguageClient(LANGUAGE, "LMML", serverOptions, clientOptions);
  try {
    await client.start();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    void vscode.window.showErrorMessage(
      `LMML: the language server did not start (${command} ${args.join(" ")}): ${message}. ` +
        "Install it with pip install 'lmml-mdit[lsp]', or set lmml.server.pythonPath.",
    );
  }
}

async function stopClient(): Promise<void> {
  const running = client;
  client = undefined;
  watcher?.dispose();
  watcher = undefined;
  if (running) {
    await running.stop();
  }
}

/** The side panel showing the server's HTML preview of one document, kept up to date as
 * it changes. */
class Preview {
  private timer: NodeJS.Timeout | undefined;
  private requests = 0;
  private disposed = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly panel: vscode.WebviewPanel,
    private document: vscode.TextDocument,
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.document === this.document) {
          this.schedule();
        }
      }),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (editor && editor.document.languageId === LANGUAGE) {
          this.document = editor.document;
          this.schedule();
        }
      }),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  schedule(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => void this.refresh(), PREVIEW_DELAY_MS);
  }

  async refresh(): Promise<void> {
    // Answers may come back out of order: only the latest request's is shown.
    const request = ++this.requests;
    const document = this.document;
    let page: string;
    if (!client) {
      page = "<p>The LMML language server is not running.</p>";
    } else {
      try {
        const result = await client.sendRequest<PreviewResult | null>(PREVIEW_METHOD, {
          textDocument: { uri: document.uri.toString() },
        });
        page = result
          ? result.html
          : "<p>The preview could not be made; the LMML output channel says why.</p>";
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        page = `<p>The preview could not be made: ${escapeHtml(message)}</p>`;
      }
    }
    if (request !== this.requests || this.disposed) {
      return;
    }
    this.panel.title = `Preview ${document.fileName.split(/[\\/]/).pop() ?? ""}`;
    this.panel.webview.html = page;
  }

  reveal(document: vscode.TextDocument): void {
    this.document = document;
    this.panel.reveal(vscode.ViewColumn.Beside, true);
    void this.refresh();
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) {
      clearTimeout(this.timer);
    }
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
    if (preview === this) {
      preview = undefined;
    }
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => `&#${char.charCodeAt(0)};`);
}

function showPreview(): void {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== LANGUAGE) {
    void vscode.window.showInformationMessage("LMML: open a .lmml file to preview it.");
    return;
  }
  if (preview) {
    preview.reveal(editor.document);
    return;
  }
  // The preview page is script-free and self-contained (images as data: URIs).
  const panel = vscode.window.createWebviewPanel(
    "lmml.preview",
    "LMML Preview",
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
    { enableScripts: false, localResourceRoots: [] },
  );
  preview = new Preview(panel, editor.document);
  void preview.refresh();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.commands.registerCommand("lmml.showPreview", showPreview),
    vscode.commands.registerCommand("lmml.restartServer", async () => {
      await stopClient();
      await startClient();
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("lmml.server")) {
        await stopClient();
        await startClient();
      }
    }),
  );
  await startClient();
}

export async function deactivate(): Promise<void> {
  preview?.dispose();
  await stopClient();
}
