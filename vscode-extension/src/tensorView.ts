// The Tensor view: a section of Run and Debug that draws a stopped program's tensor as a
// heatmap, with the checks its ShapeScript type promises. View Tensor evaluates
// shapescript._tensorview.open(...) in the selected frame, which serves the tensor's
// summary and tiles on 127.0.0.1 behind a token; the extension fetches them and hands
// them to the view.
import * as http from 'http';
import type * as vscode from 'vscode';

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

/** The view's page: a heatmap canvas, the checks and the statistics. */
export function viewHtml(nonce: string): string {
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}';">
<style>
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 4px; }
canvas { width: 100%; image-rendering: pixelated; border: 1px solid var(--vscode-panel-border); }
.bad { color: var(--vscode-errorForeground); } .ok { color: var(--vscode-testing-iconPassed); }
table { border-collapse: collapse; } td { padding: 0 6px 0 0; }
</style></head>
<body><div id="title">Use View Tensor on a value while the program is stopped.</div>
<canvas id="heat" width="256" height="256"></canvas><div id="checks"></div><table id="stats"></table>
<script nonce="${nonce}">
const canvas = document.getElementById('heat');
function colour(v, lo, hi, sequential) {
  if (v === null) return [200, 30, 30];
  if (sequential) { const t = hi > lo ? (v - lo) / (hi - lo) : 0; return [255 - 200 * t, 255 - 150 * t, 255 - 60 * t]; }
  const m = Math.max(Math.abs(lo), Math.abs(hi)) || 1; const t = Math.max(-1, Math.min(1, v / m));
  return t < 0 ? [255 + 200 * t, 255 + 130 * t, 255] : [255, 255 - 200 * t, 255 - 200 * t];
}
window.addEventListener('message', (event) => {
  const { expression, summary, tile } = event.data;
  document.getElementById('title').textContent = expression + ': ' + (summary.type || ('[' + summary.shape.join(' ') + ']')) + ' ' + summary.dtype;
  canvas.width = tile.cols; canvas.height = tile.rows;
  const ctx = canvas.getContext('2d'); const image = ctx.createImageData(tile.cols, tile.rows);
  const sequential = ['Prob', 'Unit', 'NonNeg'].some((d) => (summary.type || '').includes(d));
  const values = tile.mean.flat().filter((v) => v !== null);
  const lo = sequential ? 0 : Math.min(...values, 0); const hi = Math.max(...values, sequential ? 1 : 0);
  tile.mean.forEach((row, r) => row.forEach((v, c) => {
    const flagged = tile.nan[r][c] + tile.inf[r][c] > 0;
    const [R, G, B] = colour(flagged ? null : v, lo, hi, sequential);
    const i = 4 * (r * tile.cols + c); image.data.set([R, G, B, 255], i);
  }));
  ctx.putImageData(image, 0, 0);
  document.getElementById('checks').innerHTML = summary.checks.map((check) =>
    '<div class="' + (check.ok ? 'ok' : 'bad') + '">' + (check.ok ? '✓ ' : '✗ ') + check.check +
    (check.ok ? '' : ' (' + check.count + ', first at [' + (check.first || []).join(', ') + '])') + '</div>').join('');
  document.getElementById('stats').innerHTML = Object.entries(summary.stats).map(([k, v]) => '<tr><td>' + k + '</td><td>' + v + '</td></tr>').join('');
});
</script></body></html>`;
}

/** Register the Tensor view and View Tensor. */
export function registerTensorView(api: typeof vscode, context: vscode.ExtensionContext): void {
  let view: vscode.WebviewView | undefined;
  const provider: vscode.WebviewViewProvider = {
    resolveWebviewView(webviewView) {
      view = webviewView;
      webviewView.webview.options = { enableScripts: true };
      const nonce = Array.from({ length: 16 }, () => Math.floor(Math.random() * 36).toString(36)).join('');
      webviewView.webview.html = viewHtml(nonce);
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
      const opened = parseOpened(String(answer?.result ?? ''));
      if (!opened) {
        throw new Error(String(answer?.result ?? 'no answer'));
      }
      const [summary, tile] = await Promise.all([fetchJson(opened, '/summary'), fetchJson(opened, '/tile')]);
      await api.commands.executeCommand('shapescript.tensorView.focus');
      await view?.webview.postMessage({ expression, summary, tile });
    } catch (e) {
      void api.window.showErrorMessage(`View Tensor: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  context.subscriptions.push(
    api.window.registerWebviewViewProvider('shapescript.tensorView', provider),
    api.commands.registerCommand('shapescript.viewTensor', viewTensor),
  );
}
