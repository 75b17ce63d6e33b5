// The Metal Shading Language extension: starts msl-lsp, feeds it the `msl.*` settings,
// and adds commands, virtual documents and a status bar item around it.

import * as vscode from 'vscode';
import {
  CancellationToken,
  ConfigurationParams,
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  NotificationType,
  ResponseError,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';
import { describeFailure, ensureExecutable, findServer, nodeHost, serverFileName, ServerFound } from './serverPath';
import { configurationFor, Conversion, toServerSettings } from './settings';
import { parseServerStatus, ServerState, ServerStatus, statusView } from './statusModel';
import { VirtualDocuments } from './virtualDocs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Commands of this extension. They differ from the server's own command names
 * (`msl.syntaxTree`, `msl.showAir`, `msl.expandMacro`), which the language client
 * registers by itself. */
export const Commands = {
  restartServer: 'msl.vscode.restartServer',
  showAir: 'msl.vscode.showAir',
  showSyntaxTree: 'msl.vscode.showSyntaxTree',
  expandMacro: 'msl.vscode.expandMacro',
  selectContext: 'msl.vscode.selectContext',
  openLogs: 'msl.vscode.openLogs',
} as const;

/** The server's `workspace/executeCommand` names. */
const SERVER_SHOW_AIR = 'msl.showAir';
const SERVER_SYNTAX_TREE = 'msl.syntaxTree';
const SERVER_EXPAND_MACRO = 'msl.expandMacro';
const SERVER_CONTEXT_CANDIDATES = 'msl.contextCandidates';
const SERVER_SET_CONTEXT = 'msl.setContext';

const statusNotification = new NotificationType<unknown>('msl/status');

let controller: Controller | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  controller = new Controller(context);
  context.subscriptions.push(controller);
  await controller.start();
}

export async function deactivate(): Promise<void> {
  await controller?.stopClient();
  controller = undefined;
}

class Controller implements vscode.Disposable {
  private readonly output: vscode.OutputChannel;
  private readonly statusItem: vscode.StatusBarItem;
  private readonly air: VirtualDocuments;
  private readonly trees: VirtualDocuments;
  private readonly expansions: VirtualDocuments;
  private readonly subscriptions: vscode.Disposable[] = [];
  private client: LanguageClient | undefined;
  private serverStatus: ServerStatus | undefined;
  private failure: string | undefined;
  private treeRefresh: NodeJS.Timeout | undefined;
  /** Serializes start/stop so that quick setting changes cannot overlap restarts. */
  private lifecycle: Promise<void> = Promise.resolve();
  private state: ServerState = 'stopped';
  private server: ServerFound | undefined;
  /** `msl.server.path` as it was when the server was last started. */
  private serverPathSetting: string | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('MSL');
    this.statusItem = vscode.window.createStatusBarItem('msl.status', vscode.StatusBarAlignment.Right, 100);
    this.statusItem.name = 'Metal Shading Language';
    this.statusItem.command = Commands.openLogs;
    this.air = new VirtualDocuments('msl-air', '.ll');
    this.trees = new VirtualDocuments('msl-syntax-tree', '.syntax-tree');
    this.expansions = new VirtualDocuments('msl-macro-expansion', '.expansion.metal');
    this.subscriptions.push(
      this.output,
      this.statusItem,
      this.air,
      this.trees,
      this.expansions,
      vscode.commands.registerCommand(Commands.restartServer, () => this.restart()),
      vscode.commands.registerCommand(Commands.openLogs, () => this.output.show(true)),
      vscode.commands.registerCommand(Commands.showAir, () => this.showAir()),
      vscode.commands.registerCommand(Commands.showSyntaxTree, () => this.showSyntaxTree()),
      vscode.commands.registerCommand(Commands.expandMacro, () => this.expandMacro()),
      vscode.commands.registerCommand(Commands.selectContext, () => this.selectContext()),
      vscode.window.onDidChangeActiveTextEditor(() => this.render()),
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfigurationChanged(e)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.log('The workspace is now trusted: sending the full settings to the server.');
        this.pushSettings();
      }),
      vscode.workspace.onDidChangeTextDocument((e) => this.onDocumentChanged(e.document)),
      vscode.workspace.onDidSaveTextDocument((doc) => this.onDocumentSaved(doc)),
    );
    this.render();
    this.statusItem.show();
  }

  private log(message: string): void {
    this.output.appendLine(`[${new Date().toLocaleTimeString()}] ${message}`);
  }

  private config(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration('msl');
  }

  private workspaceFolder(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  /** The `msl.*` settings converted for the server, with problems written to the log. */
  private convert(report: boolean): Conversion {
    const config = this.config();
    const conversion = toServerSettings((key) => config.get(key), {
      trusted: vscode.workspace.isTrusted,
      workspaceFolder: this.workspaceFolder(),
      homeDir: os.homedir(),
    });
    if (report) {
      for (const p of conversion.problems) {
        this.log(`settings: ${p}`);
      }
    }
    return conversion;
  }

  private render(): void {
    const config = this.config();
    const view = statusView({
      state: this.state,
      configuredStd: config.get<string>('std'),
      configuredPlatform: config.get<string>('platform'),
      compilerMode: config.get<string>('compiler.mode'),
      server: this.serverStatus,
      serverPath: this.server?.path,
      serverSource: this.server?.source,
      detail: this.failure,
      trusted: vscode.workspace.isTrusted,
      activeUri: vscode.window.activeTextEditor?.document.uri.toString(),
    });
    this.statusItem.text = view.text;
    this.statusItem.tooltip = view.tooltip;
    this.statusItem.backgroundColor =
      view.severity === 'none' ? undefined : new vscode.ThemeColor(`statusBarItem.${view.severity}Background`);
  }

  private setState(state: ServerState, failure?: string): void {
    this.state = state;
    this.failure = failure;
    this.render();
  }

  start(): Promise<void> {
    this.lifecycle = this.lifecycle.then(() => this.startNow()).catch((e) => this.log(`start: ${errorText(e)}`));
    return this.lifecycle;
  }

  restart(): Promise<void> {
    this.lifecycle = this.lifecycle
      .then(async () => {
        this.log('Restarting the language server.');
        await this.stopNow();
        await this.startNow();
      })
      .catch((e) => this.log(`restart: ${errorText(e)}`));
    return this.lifecycle;
  }

  stopClient(): Promise<void> {
    this.lifecycle = this.lifecycle.then(() => this.stopNow()).catch((e) => this.log(`stop: ${errorText(e)}`));
    return this.lifecycle;
  }

  private async startNow(): Promise<void> {
    this.serverStatus = undefined;
    this.setState('starting');
    const bundled = path.join(this.context.extensionPath, 'server', serverFileName(process.platform));
    ensureExecutable(bundled);
    const setting = this.config().get<string>('server.path');
    this.serverPathSetting = setting?.trim() ?? '';
    const found = findServer(setting, this.context.extensionPath, nodeHost(), this.workspaceFolder());
    if (found.kind !== 'found') {
      this.server = undefined;
      const message = describeFailure(found);
      this.log(message);
      if (found.kind === 'not-found') {
        this.log(`Looked for the server in: ${found.searched.join(', ')}`);
      }
      this.setState('error', message);
      void this.reportMissingServer(message);
      return;
    }
    this.server = found;
    this.log(`Starting ${found.path} (${found.source}).`);

    const conversion = this.convert(true);
    const serverOptions: ServerOptions = {
      command: found.path,
      args: [],
      options: { cwd: this.workspaceFolder() },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'metal' },
        { scheme: 'untitled', language: 'metal' },
      ],
      outputChannel: this.output,
      traceOutputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: conversion.settings,
      diagnosticCollectionName: 'msl',
      markdown: { isTrusted: false, supportHtml: false },
      initializationFailedHandler: (error) => {
        this.log(`The server failed to initialize: ${errorText(error)}`);
        this.setState('error', `Initialization failed: ${errorText(error)}`);
        return false;
      },
      middleware: {
        workspace: {
          configuration: (params, token, next) => this.answerConfiguration(params, token, next),
        },
      },
    };
    const client = new LanguageClient('msl', 'MSL Language Server', serverOptions, clientOptions);
    this.client = client;
    client.onDidChangeState((e) => {
      if (this.client !== client) {
        return;
      }
      if (e.newState === State.Running) {
        this.setState('running');
      } else if (e.newState === State.Starting) {
        this.setState('starting');
      } else if (this.state !== 'error') {
        // a stop we asked for detaches the client first, so this one was not expected
        this.setState('error', 'The server stopped. See the logs, or run "MSL: Restart Language Server".');
      }
    });
    client.onNotification(statusNotification, (params) => {
      const status = parseServerStatus(params);
      if (status === undefined) {
        this.log(`Ignored a malformed msl/status notification: ${JSON.stringify(params)}`);
        return;
      }
      this.serverStatus = status;
      this.render();
    });
    try {
      await client.start();
    } catch (e) {
      const message = `The language server could not be started: ${errorText(e)}`;
      this.log(message);
      this.setState('error', message);
      void vscode.window.showErrorMessage(`MSL: ${message}`, 'Open Logs').then((choice) => {
        if (choice === 'Open Logs') {
          this.output.show(true);
        }
      });
    }
  }

  private async stopNow(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) {
      try {
        await client.dispose(5000);
      } catch (e) {
        this.log(`The server did not stop cleanly: ${errorText(e)}`);
      }
    }
    this.setState('stopped');
  }

  private async reportMissingServer(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(`MSL: ${message}`, 'Open Setting', 'Open Logs');
    if (choice === 'Open Setting') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'msl.server.path');
    } else if (choice === 'Open Logs') {
      this.output.show(true);
    }
  }

  /** `workspace/configuration`: the server's own section gets the converted settings. */
  private async answerConfiguration(
    params: ConfigurationParams,
    token: CancellationToken,
    next: (params: ConfigurationParams, token: CancellationToken) => unknown,
  ): Promise<unknown[] | ResponseError<void>> {
    const settings = this.convert(false).settings;
    const ours = params.items.map((item) => configurationFor(item.section, settings));
    if (ours.every((v) => v !== undefined)) {
      return ours;
    }
    const others = await next(params, token);
    if (others instanceof ResponseError || !Array.isArray(others)) {
      return others as ResponseError<void>;
    }
    return ours.map((v, i) => (v !== undefined ? v : others[i]));
  }

  /**
   * Sends the current settings to a running server. Queued behind any start or restart in
   * progress, so that they reach the server that ends up running.
   */
  private pushSettings(): void {
    this.render();
    this.lifecycle = this.lifecycle
      .then(async () => {
        const client = this.client;
        if (client === undefined || !client.isRunning()) {
          return;
        }
        const { settings } = this.convert(true);
        await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { msl: settings } });
      })
      .catch((e) => this.log(`Could not send the settings: ${errorText(e)}`));
  }

  private onConfigurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration('msl')) {
      return;
    }
    // VS Code also reports restricted settings as changed when trust is granted; only a new
    // value is a reason to restart
    const serverPath = this.config().get<string>('server.path')?.trim() ?? '';
    if (e.affectsConfiguration('msl.server.path') && serverPath !== this.serverPathSetting) {
      this.log(`msl.server.path changed to "${serverPath}".`);
      void this.restart();
      return;
    }
    this.pushSettings();
  }

  private activeMetalDocument(): vscode.TextDocument | undefined {
    const doc = vscode.window.activeTextEditor?.document;
    if (doc === undefined || doc.languageId !== 'metal') {
      void vscode.window.showWarningMessage('MSL: open a Metal (.metal) file first.');
      return undefined;
    }
    return doc;
  }

  private runningClient(): LanguageClient | undefined {
    const client = this.client;
    if (client === undefined || !client.isRunning()) {
      void vscode.window.showErrorMessage('MSL: the language server is not running.', 'Open Logs').then((c) => {
        if (c === 'Open Logs') {
          this.output.show(true);
        }
      });
      return undefined;
    }
    return client;
  }

  /** Runs one of the server's commands for a document; errors become notifications. */
  private async serverText(client: LanguageClient, command: string, doc: vscode.TextDocument): Promise<string | undefined> {
    const uri = client.code2ProtocolConverter.asUri(doc.uri);
    try {
      const result: unknown = await client.sendRequest(ExecuteCommandRequest.type, {
        command,
        arguments: [{ uri }],
      });
      if (typeof result !== 'string') {
        void vscode.window.showWarningMessage(`MSL: the server has no result for ${path.basename(doc.uri.path)}.`);
        return undefined;
      }
      return result;
    } catch (e) {
      this.log(`${command} failed: ${errorText(e)}`);
      void vscode.window.showErrorMessage(`MSL: ${errorText(e)}`);
      return undefined;
    }
  }

  private async showBeside(uri: vscode.Uri, languageId: string): Promise<void> {
    let doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== languageId) {
      const known = await vscode.languages.getLanguages();
      if (known.includes(languageId)) {
        doc = await vscode.languages.setTextDocumentLanguage(doc, languageId);
      }
    }
    await vscode.window.showTextDocument(doc, {
      viewColumn: vscode.ViewColumn.Beside,
      preserveFocus: true,
      preview: false,
    });
  }

  private async showAir(): Promise<void> {
    const doc = this.activeMetalDocument();
    const client = doc && this.runningClient();
    if (doc === undefined || client === undefined) {
      return;
    }
    const text = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'MSL: compiling to AIR' },
      () => this.serverText(client, SERVER_SHOW_AIR, doc),
    );
    if (text !== undefined) {
      await this.showBeside(this.air.update(doc.uri, text), 'llvm');
    }
  }

  private async showSyntaxTree(): Promise<void> {
    const doc = this.activeMetalDocument();
    const client = doc && this.runningClient();
    if (doc === undefined || client === undefined) {
      return;
    }
    const text = await this.serverText(client, SERVER_SYNTAX_TREE, doc);
    if (text !== undefined) {
      await this.showBeside(this.trees.update(doc.uri, text), 'plaintext');
    }
  }

  /** The macro invocation at the cursor, expanded, in a read-only document beside it. */
  private async expandMacro(): Promise<void> {
    const doc = this.activeMetalDocument();
    const client = doc && this.runningClient();
    const editor = vscode.window.activeTextEditor;
    if (doc === undefined || client === undefined || editor === undefined) {
      return;
    }
    let result: unknown;
    try {
      result = await client.sendRequest(ExecuteCommandRequest.type, {
        command: SERVER_EXPAND_MACRO,
        arguments: [
          {
            uri: client.code2ProtocolConverter.asUri(doc.uri),
            position: client.code2ProtocolConverter.asPosition(editor.selection.active),
          },
        ],
      });
    } catch (e) {
      void vscode.window.showErrorMessage(`MSL: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    const found = result as { name?: unknown; expansion?: unknown } | null;
    if (found === null || typeof found !== 'object' || typeof found.expansion !== 'string') {
      void vscode.window.showInformationMessage('MSL: there is no macro invocation at the cursor.');
      return;
    }
    const text = `// ${String(found.name)} expands to:\n${found.expansion}`;
    await this.showBeside(this.expansions.update(doc.uri, text), 'metal');
  }

  /** Lets the user pick the unit whose context the active file is analysed in: one of the
   * files that include it, or the file on its own. */
  private async selectContext(): Promise<void> {
    const doc = this.activeMetalDocument();
    const client = doc && this.runningClient();
    if (doc === undefined || client === undefined) {
      return;
    }
    const uri = client.code2ProtocolConverter.asUri(doc.uri);
    let found: { current?: unknown; candidates?: unknown };
    try {
      found = (await client.sendRequest(ExecuteCommandRequest.type, {
        command: SERVER_CONTEXT_CANDIDATES,
        arguments: [{ uri }],
      })) as { current?: unknown; candidates?: unknown };
    } catch (e) {
      void vscode.window.showErrorMessage(`MSL: ${errorText(e)}`);
      return;
    }
    const candidates = Array.isArray(found?.candidates)
      ? found.candidates.filter((c): c is string => typeof c === 'string')
      : [];
    const current = typeof found?.current === 'string' ? found.current : null;
    type Pick = vscode.QuickPickItem & { context: string | null };
    const items: Pick[] = [
      {
        label: 'This file on its own',
        description: current === null ? 'current' : undefined,
        context: null,
      },
      ...candidates.map((c) => {
        const fileUri = vscode.Uri.parse(c);
        return {
          label: vscode.workspace.asRelativePath(fileUri),
          description: c === current ? 'current' : 'includes this file',
          context: c,
        };
      }),
    ];
    const picked = await vscode.window.showQuickPick(items, {
      placeHolder:
        candidates.length === 0
          ? 'No file of the workspace includes this one (as far as the index knows)'
          : 'Analyse this file inside which unit?',
    });
    if (picked === undefined) {
      return;
    }
    try {
      await client.sendRequest(ExecuteCommandRequest.type, {
        command: SERVER_SET_CONTEXT,
        arguments: [{ uri, context: picked.context }],
      });
    } catch (e) {
      void vscode.window.showErrorMessage(`MSL: ${errorText(e)}`);
    }
  }

  /** Keeps an open syntax tree in step with its source as the user types. */
  private onDocumentChanged(doc: vscode.TextDocument): void {
    if (doc.languageId !== 'metal' || !this.trees.isOpen(doc.uri)) {
      return;
    }
    if (this.treeRefresh !== undefined) {
      clearTimeout(this.treeRefresh);
    }
    this.treeRefresh = setTimeout(() => {
      this.treeRefresh = undefined;
      void this.refreshView(doc, this.trees, SERVER_SYNTAX_TREE);
    }, 300);
  }

  /** Recompiles an open AIR view when its source is saved. */
  private onDocumentSaved(doc: vscode.TextDocument): void {
    if (doc.languageId === 'metal' && this.air.isOpen(doc.uri)) {
      void this.refreshView(doc, this.air, SERVER_SHOW_AIR);
    }
  }

  private async refreshView(doc: vscode.TextDocument, views: VirtualDocuments, command: string): Promise<void> {
    const client = this.client;
    if (client === undefined || !client.isRunning() || !views.isOpen(doc.uri)) {
      return;
    }
    try {
      const result: unknown = await client.sendRequest(ExecuteCommandRequest.type, {
        command,
        arguments: [{ uri: client.code2ProtocolConverter.asUri(doc.uri) }],
      });
      if (typeof result === 'string' && views.isOpen(doc.uri)) {
        views.update(doc.uri, result);
      }
    } catch (e) {
      this.log(`${command} failed: ${errorText(e)}`);
    }
  }

  dispose(): void {
    if (this.treeRefresh !== undefined) {
      clearTimeout(this.treeRefresh);
    }
    for (const d of this.subscriptions) {
      d.dispose();
    }
  }
}

function errorText(e: unknown): string {
  if (e instanceof Error) {
    return e.message;
  }
  if (typeof e === 'object' && e !== null && 'message' in e && typeof (e as { message: unknown }).message === 'string') {
    return (e as { message: string }).message;
  }
  return String(e);
}
