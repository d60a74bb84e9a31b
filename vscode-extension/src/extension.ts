// The ShapeScript extension: the language client for `python -m shapescript_lsp`.
//
// Language registration, the grammar and the settings are declared in
// package.json; this file starts the server with the configured Python,
// serves the read-only library documents and restarts the server when its
// interpreter or arguments change, or when the workspace becomes trusted. The logic it
// relies on lives in config.ts, library.ts, hover.ts and trust.ts, which don't import
// `vscode` and are unit-tested.
import { promises as fs } from 'fs';
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorHandler,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from 'vscode-languageclient/node';
import {
  choosePython,
  displayCommand,
  initializationOptions,
  PYTHON_EXTENSION_ID,
  PythonApiLike,
  picturesAllowed,
  themeName,
  readSettings,
  RESTART_SETTINGS,
  SECTION,
  serverCommand,
  START_OPTION_SETTINGS,
} from './config';
import { ArchitectureView, architectureOptions } from './architecture';
import { registerDebugging } from './debugging';
import { registerTensorView } from './tensorView';
import { trustHover } from './hover';
import { PythonDefinitions, withPythonReferences } from './pythonDefinition';
import { LIBRARY_SCHEME, LibraryUris } from './library';
import { whenTrusted } from './trust';

const CLIENT_ID = 'shapescript'; // also the prefix of the `shapescript.trace.server` setting
const CLIENT_NAME = 'ShapeScript Language Server';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;
let library: LibraryUris<vscode.Uri> | undefined;
let extensionCommands: string[] = [];
/** Starts and stops run one after the other, never interleaved. */
let queue: Promise<unknown> = Promise.resolve();

function log(message: string): void {
  output?.appendLine(`[${new Date().toISOString()}] ${message}`);
}

function serialize<T>(task: () => Promise<T>): Promise<T> {
  const next = queue.then(task, task);
  queue = next.catch(() => undefined);
  return next;
}

/** Serves prelude.ss, nn.ss and builtins.ss from the library folder; VS Code shows them read-only. */
class LibraryDocuments implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const file = library?.libraryFile(uri);
    if (file === undefined) {
      throw new Error(`not a ShapeScript library file: ${uri.toString()}`);
    }
    try {
      return await fs.readFile(file, 'utf8');
    } catch (e) {
      throw new Error(`can't read ${file}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** A new server may have rewritten the files: reload the open library documents. */
  refreshOpen(): void {
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme === LIBRARY_SCHEME) {
        this.changed.fire(doc.uri);
      }
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}

function hoverTrust(): boolean | { enabledCommands: string[] } {
  return vscode.workspace.isTrusted ? true : { enabledCommands: extensionCommands };
}

async function startClient(context: vscode.ExtensionContext, documents: LibraryDocuments): Promise<void> {
  const settings = readSettings(vscode.workspace.getConfiguration(SECTION));
  const folder = vscode.workspace.workspaceFolders?.[0];
  const choice = await choosePython(
    settings,
    () => vscode.extensions.getExtension<PythonApiLike>(PYTHON_EXTENSION_ID),
    { workspaceFolder: folder?.uri.fsPath, resource: folder?.uri, workspaceTrusted: vscode.workspace.isTrusted },
  );
  const cmd = serverCommand(choice.python, settings.serverArgs);
  const libraryDir = context.globalStorageUri.fsPath;
  const serverOptions: ServerOptions = {
    command: cmd.command,
    args: cmd.args,
    // Not the workspace: `python -m` puts the working directory first on
    // sys.path, so a workspace's own shapescript_lsp.py would run instead.
    options: { cwd: libraryDir },
  };
  // A server that exits before it has answered initialize (no shapescript in
  // that Python, a syntax error in a development checkout) isn't restarted:
  // the message below says what to do. Once it has run, a crash restarts it
  // as vscode-languageclient does by default (up to 4 times in 3 minutes).
  let initialized = false;
  let lastStartError: string | undefined;
  let fallback: ErrorHandler | undefined;
  const errorHandler: ErrorHandler = {
    error: (error, message, count) => fallback!.error(error, message, count),
    closed: () =>
      initialized
        ? fallback!.closed()
        : { action: CloseAction.DoNotRestart, message: 'the language server exited while starting', handled: true },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'shapescript' },
      { scheme: 'untitled', language: 'shapescript' },
      { scheme: LIBRARY_SCHEME, language: 'shapescript' },
      // The `%%shapescript` cells of Jupyter notebooks, which the editor sees as Python.
      { notebook: 'jupyter-notebook', language: 'python' },
      { notebook: 'jupyter-notebook', language: 'shapescript' },
    ],
    outputChannel: output,
    errorHandler,
    initializationFailedHandler: (error) => {
      lastStartError = error instanceof Error ? error.message : String(error);
      log(`initialize failed: ${lastStartError}`);
      return false;
    },
    initializationOptions: {
      ...initializationOptions(
        libraryDir,
        choice.python,
        vscode.workspace.isTrusted,
        settings.hoverPictures,
        settings.bindingHints,
        themeName(vscode.window.activeColorTheme.kind),
        settings.pythonModules,
      ),
      ...architectureOptions(),
    },
    uriConverters: {
      code2Protocol: (uri) => library!.toServer(uri),
      protocol2Code: (value) => library!.fromServer(value),
    },
    middleware: {
      provideHover: async (document, position, token, next) =>
        trustHover(await next(document, position, token), hoverTrust()),
      provideReferences: async (document, position, options, token, next) =>
        withPythonReferences(await next(document, position, options, token), document, position),
    },
  };
  const why = choice.source === 'setting' ? 'shapescript.python'
    : choice.source === 'python-extension' ? 'the Python extension\'s interpreter'
      : `default${choice.note ? `; ${choice.note}` : ''}`;
  log(`starting ${displayCommand(cmd)} (Python from ${why}), library in ${libraryDir}`);
  const next = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
  fallback = next.createDefaultErrorHandler(4);
  client = next;
  try {
    await next.start();
    // start() resolves, rather than rejects, when the server exits before it
    // answers initialize (vscode-languageclient 9 clears the promise it returns).
    if (!next.isRunning()) {
      throw new Error(lastStartError ?? 'the language server exited while starting');
    }
    initialized = true;
    log('language server started');
    documents.refreshOpen();
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    log(`language server failed to start: ${message}`);
    void vscode.window
      .showErrorMessage(
        `ShapeScript: the language server didn't start (${displayCommand(cmd)}: ${message}). ` +
          'The ShapeScript output channel shows why. The server is part of the shapescript package: ' +
          `install it in that Python (\`${choice.python} -m pip install shapescript\`), ` +
          'or set shapescript.python to an interpreter that has it.',
        'Open Settings',
        'Show Output',
      )
      .then((pick) => {
        if (pick === 'Open Settings') {
          void vscode.commands.executeCommand('workbench.action.openSettings', 'shapescript.python');
        } else if (pick === 'Show Output') {
          output?.show(true);
        }
      });
  }
}

async function stopClient(): Promise<void> {
  const old = client;
  client = undefined;
  // A client whose start failed has nothing to stop (and stop() would throw).
  if (old?.isRunning()) {
    try {
      await old.stop(5000);
    } catch (e) {
      log(`stopping the language server: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

function sendPictures(): void {
  const images = readSettings(vscode.workspace.getConfiguration(SECTION)).hoverPictures;
  const enabled = picturesAllowed(vscode.workspace.isTrusted, images);
  if (client?.isRunning()) {
    void client.sendNotification('shapescript/setPictures', { enabled, images }).catch(() => undefined);
  }
}

/** Pictures are drawn on the theme's background: tell the server when the theme changes. */
function sendTheme(theme: vscode.ColorTheme): void {
  if (client?.isRunning()) {
    void client.sendNotification('shapescript/setTheme', { theme: themeName(theme.kind) }).catch(() => undefined);
  }
}

/** Restart when the Python extension's interpreter changes, unless shapescript.python overrides it. */
function followPythonExtension(context: vscode.ExtensionContext, restart: () => Promise<void>): void {
  const ext = vscode.extensions.getExtension<PythonApiLike>(PYTHON_EXTENSION_ID);
  if (!ext) {
    return;
  }
  void Promise.resolve(ext.isActive ? ext.exports : ext.activate()).then(
    (api) => {
      try {
        const event = api?.environments?.onDidChangeActiveEnvironmentPath as vscode.Event<unknown> | undefined;
        if (typeof event === 'function') {
          context.subscriptions.push(
            event(() => {
              if (!readSettings(vscode.workspace.getConfiguration(SECTION)).python) {
                log('the Python extension\'s interpreter changed: restarting');
                void restart();
              }
            }),
          );
        }
      } catch {
        // an older Python extension without the environments API
      }
    },
    () => undefined,
  );
}

export async function activate(context: vscode.ExtensionContext): Promise<{ architecture: ArchitectureView }> {
  output = vscode.window.createOutputChannel('ShapeScript');
  library = new LibraryUris(context.globalStorageUri.fsPath, vscode.Uri);
  const pkg = context.extension.packageJSON as { contributes?: { commands?: { command: string }[] } };
  extensionCommands = (pkg.contributes?.commands ?? []).map((c) => c.command);
  try {
    await vscode.workspace.fs.createDirectory(context.globalStorageUri);
  } catch (e) {
    log(`can't create ${context.globalStorageUri.fsPath}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const documents = new LibraryDocuments();
  registerDebugging(vscode, context);
  registerTensorView(vscode, context);
  const restart = () =>
    serialize(async () => {
      await stopClient();
      await startClient(context, documents);
    });
  context.subscriptions.push(
    output,
    documents,
    vscode.workspace.registerTextDocumentContentProvider(LIBRARY_SCHEME, documents),
    vscode.commands.registerCommand('shapescript.verify', (uri?: string, fn?: string) => verifyFunction(uri, fn)),
    vscode.commands.registerCommand('shapescript.restartServer', () => {
      log('restart requested');
      return restart();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (RESTART_SETTINGS.some((s) => e.affectsConfiguration(s))) {
        log('the server\'s Python or arguments changed: restarting');
        void restart();
      } else if (START_OPTION_SETTINGS.some((s) => e.affectsConfiguration(s))) {
        log('an option the server reads at start changed: restarting');
        void restart();
      } else if (e.affectsConfiguration(`${SECTION}.hover.pictures`)) {
        sendPictures();
      }
    }),
    vscode.window.onDidChangeActiveColorTheme(sendTheme),
  );
  const pythonDefinitions = new PythonDefinitions(async (file, name) => {
    await queue;  // a server that is starting answers once it has started
    return client?.isRunning() ? client.sendRequest('shapescript/declarationOf', { path: file, name }) : undefined;
  }, log);
  context.subscriptions.push(
    pythonDefinitions,
    vscode.languages.registerDefinitionProvider({ language: 'python', scheme: 'file' }, pythonDefinitions),
  );
  // Untrusted: the Python extension isn't woken (it may run the workspace's interpreters),
  // and the server runs without pictures or Python modules until trust is granted.
  context.subscriptions.push(
    whenTrusted(
      vscode.workspace,
      () => followPythonExtension(context, restart),
      () => {
        log('the workspace is trusted now: restarting');
        void restart();
      },
    ),
  );
  const architecture = new ArchitectureView(() => client);
  context.subscriptions.push(...architecture.register());
  await serialize(() => startClient(context, documents));
  return { architecture };
}

interface VerifyAnswer {
  ok: boolean;
  markdown: string;
}

/** The Verify lens's command (the server's `shapescript/verify`): the reference run's
 * error table, opened as Markdown beside the file. From the palette, it asks which
 * function of the active file. */
async function verifyFunction(uri?: string, fn?: string): Promise<void> {
  const target = uri ?? vscode.window.activeTextEditor?.document.uri.toString();
  const name = fn ?? (await vscode.window.showInputBox({ prompt: 'Verify which function?' }));
  if (!target || !name) {
    return;
  }
  await queue;
  if (!client?.isRunning()) {
    void vscode.window.showWarningMessage('ShapeScript: the language server isn\'t running');
    return;
  }
  const answer = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Verifying ${name}…` },
    () => client!.sendRequest<VerifyAnswer>('shapescript/verify', { uri: target, fn: name }),
  );
  const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: answer.markdown });
  await vscode.commands.executeCommand('markdown.showPreviewToSide', document.uri);
}

export function deactivate(): Promise<void> {
  return serialize(stopClient);
}
