// The Tensor view: a section of Run and Debug that draws a stopped program's tensor as a
// heatmap (zoomed and panned down to single values), with the checks its ShapeScript type
// promises. View Tensor evaluates
// shapescript._tensorview.open(...) in the selected frame, which serves the tensor's
// summary and tiles on 127.0.0.1 behind a token; the extension fetches them and hands
// them to the view.
import * as http from 'http';
import type * as vscode from 'vscode';
import { viewHtml } from './tensorViewPage';

export { viewHtml };

export interface Opened {
  id: string;
  url: string;
  token: string;
}

/** The Python expression that opens `expression` in the view and gives JSON back. */
export function openExpression(expression: string): string {
  return (
    "__import__('json').dumps(__import__('shapescript._tensorview', fromlist=['open'])" +
    `.open(${expression}, expression=${JSON.stringify(expression)}))`
  );
}

/** What evaluating `openExpression` answered (a Python str's repr of JSON), if it worked. */
export function parseOpened(result: string): Opened | undefined {
  let text = result.trim();
  if ((text.startsWith("'") && text.endsWith("'")) || (text.startsWith('"') && text.endsWith('"'))) {
    text = text.slice(1, -1);
  }
  try {
    const found = JSON.parse(text) as Partial<Opened>;
    if (typeof found.id === 'string' && typeof found.token === 'string' && typeof found.url === 'string'
      && /^http:\/\/127\.0\.0\.1:\d+$/.test(found.url)) {
      return { id: found.id, url: found.url, token: found.token };
    }
  } catch {
    return undefined;
  }
  return undefined;
}

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

/** Register the Tensor view and View Tensor. */
export function registerTensorView(api: typeof vscode, context: vscode.ExtensionContext): void {
  let view: vscode.WebviewView | undefined;
  let opened: Opened | undefined;
  const provider: vscode.WebviewViewProvider = {
    resolveWebviewView(webviewView) {
      view = webviewView;
      webviewView.webview.options = { enableScripts: true };
      const nonce = Array.from({ length: 16 }, () => Math.floor(Math.random() * 36).toString(36)).join('');
      webviewView.webview.html = viewHtml(nonce);
      webviewView.webview.onDidReceiveMessage((message: { type?: string; key?: string; query?: Record<string, string | number> }) => {
        const source = opened;
        if (message?.type !== 'tile' || !source) {
          return;
        }
        fetchJson(source, '/tile', message.query ?? {}).then(
          (tile) => void webviewView.webview.postMessage({ type: 'tile', key: message.key, tile }),
          (error) => void webviewView.webview.postMessage({ type: 'tile', key: message.key, error: String(error) }),
        );
      });
    },
  };
  const viewTensor = async (arg?: { variable?: { evaluateName?: string; name?: string } }) => {
    const session = api.debug.activeDebugSession;
    if (!session) {
      void api.window.showInformationMessage('View Tensor works while a program is stopped in the debugger.');
      return;
    }
    const expression = arg?.variable?.evaluateName ?? arg?.variable?.name
      ?? (await api.window.showInputBox({ prompt: 'The tensor to view (a Python expression of the frame)' }));
    if (!expression) {
      return;
    }
    const item = api.debug.activeStackItem;
    const frameId = item && 'frameId' in item ? item.frameId : undefined;
    try {
      const answer = await session.customRequest('evaluate', { expression: openExpression(expression), frameId, context: 'repl' });
      const found = parseOpened(String(answer?.result ?? ''));
      if (!found) {
        throw new Error(String(answer?.result ?? 'no answer'));
      }
      const summary = await fetchJson(found, '/summary');
      opened = found;
      await api.commands.executeCommand('shapescript.tensorView.focus');
      await view?.webview.postMessage({ type: 'show', expression, summary });
    } catch (e) {
      void api.window.showErrorMessage(`View Tensor: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  context.subscriptions.push(
    api.window.registerWebviewViewProvider('shapescript.tensorView', provider),
    api.commands.registerCommand('shapescript.viewTensor', viewTensor),
  );
}
