// The Tensor view: a section of Run and Debug that draws a stopped program's tensor as a
// heatmap (zoomed and panned down to single values), with the checks its ShapeScript type
// promises. View Tensor evaluates
// shapescript._tensorview.open(...) in the selected frame, which serves the tensor's
// summary and tiles on 127.0.0.1 behind a token; the extension fetches them and hands
// them to the view.
import * as http from 'http';
import type * as vscode from 'vscode';
import { RUNNING_REQUESTS, TensorViewModel, openExpression, parseOpened } from './tensorViewModel';
import type { Opened } from './tensorViewModel';
import { viewHtml } from './tensorViewPage';

export { viewHtml };

export { openExpression, parseOpened };
export type { Opened };

/** GET a JSON answer of the view's server, with the token. */
export function fetchJson(opened: Opened, path: string, query: Record<string, string | number> = {}): Promise<unknown> {
  const params = new URLSearchParams({ id: opened.id, ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])) });
  return new Promise((resolve, reject) => {
    const request = http.get(`${opened.url}${path}?${params}`, { headers: { 'X-ShapeScript-Token': opened.token } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => {
        try {
          const parsed = JSON.parse(body);
          if (response.statusCode === 200) {
            resolve(parsed);
          } else {
            reject(new Error(parsed.error ?? `status ${response.statusCode}`));
          }
        } catch (e) {
          reject(e);
        }
      });
    });
    request.on('error', reject);
  });
}

/** The frame the debugger has selected, if a stack frame is. */
function selectedFrame(api: typeof vscode): number | undefined {
  const item = api.debug.activeStackItem;
  return item && 'frameId' in item ? item.frameId : undefined;
}

/** Register the Tensor view and View Tensor. */
export function registerTensorView(api: typeof vscode, context: vscode.ExtensionContext): void {
  let view: vscode.WebviewView | undefined;
  const model = new TensorViewModel({
    async evaluate(expression, frameId) {
      const session = api.debug.activeDebugSession;
      if (!session) {
        throw new Error('no program is being debugged');
      }
      const answer = await session.customRequest('evaluate', { expression, frameId, context: 'repl' });
      return String(answer?.result ?? '');
    },
    fetch: fetchJson,
    post(message) {
      void view?.webview.postMessage(message);
    },
  });
  const provider: vscode.WebviewViewProvider = {
    resolveWebviewView(webviewView) {
      view = webviewView;
      webviewView.webview.options = { enableScripts: true };
      const nonce = Array.from({ length: 16 }, () => Math.floor(Math.random() * 36).toString(36)).join('');
      webviewView.webview.html = viewHtml(nonce);
      webviewView.webview.onDidReceiveMessage((message: { type?: string; key?: string; index?: number; expression?: string; query?: Record<string, string | number> }) => {
        if (message?.type === 'tile') {
          model.tile(message.query ?? {}).then(
            (tile) => void webviewView.webview.postMessage({ type: 'tile', key: message.key, tile }),
            (error) => void webviewView.webview.postMessage({ type: 'tile', key: message.key, error: String(error) }),
          );
        } else if (message?.type === 'select' && typeof message.index === 'number') {
          void model.select(message.index);
        } else if (message?.type === 'remove' && typeof message.index === 'number') {
          void model.remove(message.index);
        } else if (message?.type === 'change' && typeof message.expression === 'string') {
          void model.change(message.expression);
        } else if (message?.type === 'ready' && model.expressions.length) {
          // The page was made again (the view was hidden): give it the tabs and the value.
          void webviewView.webview.postMessage({ type: 'tabs', expressions: model.expressions, selected: model.selected });
          void model.refresh();
        }
      });
    },
  };
  const viewTensor = async (arg?: { variable?: { evaluateName?: string; name?: string }; scheme?: string }) => {
    if (!api.debug.activeDebugSession) {
      void api.window.showInformationMessage('View Tensor works while a program is stopped in the debugger.');
      return;
    }
    // The Variables and Watch menus give the variable; the editor's menu gives the file's URI.
    const expression = arg?.variable?.evaluateName ?? arg?.variable?.name
      ?? (typeof arg?.scheme === 'string' ? editorExpression(api.window.activeTextEditor) : undefined)
      ?? (await api.window.showInputBox({ prompt: 'The tensor to view (a Python expression of the frame)' }));
    if (!expression) {
      return;
    }
    await api.commands.executeCommand('shapescript.tensorView.focus');
    await model.add(expression, selectedFrame(api));
  };
  context.subscriptions.push(
    api.window.registerWebviewViewProvider('shapescript.tensorView', provider, { webviewOptions: { retainContextWhenHidden: true } }),
    api.commands.registerCommand('shapescript.viewTensor', viewTensor),
    api.debug.onDidChangeActiveStackItem((item) => {
      if (item && 'frameId' in item) {
        void model.frameChanged(item.frameId);
      }
    }),
    api.debug.registerDebugAdapterTrackerFactory('*', {
      createDebugAdapterTracker: () => ({
        onWillReceiveMessage(message: { type?: string; command?: string }) {
          if (message?.type === 'request' && RUNNING_REQUESTS.includes(message.command ?? '')) {
            model.ran();
          }
        },
        onDidSendMessage(message: { type?: string; event?: string }) {
          if (message?.type === 'event' && message.event === 'continued') {
            model.ran();
          }
        },
      }),
    }),
    api.debug.onDidTerminateDebugSession(() => model.ended()),
  );
}

/** The editor's selection, or the name (with its dotted fields, `m.w`) under the cursor. */
function editorExpression(editor: vscode.TextEditor | undefined): string | undefined {
  if (!editor) {
    return undefined;
  }
  if (!editor.selection.isEmpty) {
    return editor.document.getText(editor.selection);
  }
  const range = editor.document.getWordRangeAtPosition(editor.selection.active, /[A-Za-z_][\w.]*/);
  return range ? editor.document.getText(range) : undefined;
}
