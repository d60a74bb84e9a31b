import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as http from 'node:http';
import { openExpression, parseOpened, registerTensorView, viewHtml } from '../tensorView';
import { TensorViewModel } from '../tensorViewModel';
import type { TensorHost } from '../tensorViewModel';
import { pageFunctions } from '../tensorViewPage';

describe('the Tensor view', () => {
  it('opens the expression in the program through shapescript._tensorview', () => {
    assert.equal(
      openExpression('att[0]'),
      "__import__('json').dumps(__import__('shapescript._tensorview', fromlist=['open'])" +
        '.open(att[0], expression="att[0]"))',
    );
  });

  it("reads the server's id, URL and token from the evaluated repr", () => {
    const result = `'{"id": "ab12", "url": "http://127.0.0.1:4711", "token": "t-0_k"}'`;
    assert.deepEqual(parseOpened(result), { id: 'ab12', url: 'http://127.0.0.1:4711', token: 't-0_k' });
  });

  it('refuses an answer that is not the server on 127.0.0.1', () => {
    assert.equal(parseOpened(`'{"id": "a", "url": "http://10.0.0.2:80", "token": "t"}'`), undefined);
    assert.equal(parseOpened("NameError: name 'att' is not defined"), undefined);
  });

  it('runs only its own script', () => {
    const html = viewHtml('n0nce');
    assert.match(html, /script-src 'nonce-n0nce'/);
    assert.match(html, /<script nonce="n0nce">/);
  });

  it("includes the tile functions in its script, without the compiled module's `exports`", () => {
    const source = pageFunctions();
    assert.doesNotMatch(source, /\bexports\b|\brequire\(/);
    const run = new Function(`${source}\nreturn tileRequests(fitWhole(1000, 1000, 250, 250), 1000, 1000);`);
    assert.deepEqual(run(), [{ row: 0, col: 0, row_step: 4, col_step: 4 }]);
    const script = viewHtml('n').split('<script nonce="n">')[1].split('</script>')[0];
    assert.doesNotThrow(() => new Function('acquireVsCodeApi', 'document', 'window', script));
  });
});

/** A debug session and server made up for the model: values by frame, answers by path. */
function fakeHost(values: Record<number, Record<string, number[]>>) {
  const posted: Record<string, unknown>[] = [];
  const fetched: string[] = [];
  let next = 0;
  const served: Record<string, number[]> = {};
  const host: TensorHost = {
    async evaluate(expression, frameId) {
      const name = /\.open\((.*), expression=/.exec(expression)?.[1] ?? '';
      const shape = values[frameId ?? 0]?.[name];
      if (!shape) {
        return `NameError: name '${name}' is not defined`;
      }
      const id = `v${next++}`;
      served[id] = shape;
      return `'{"id": "${id}", "url": "http://127.0.0.1:9", "token": "t"}'`;
    },
    async fetch(opened, path) {
      fetched.push(`${path} ${opened.id}`);
      return path === '/summary' ? { shape: served[opened.id] } : {};
    },
    post(message) {
      posted.push(message);
    },
  };
  return { host, posted, fetched };
}

describe("the Tensor view's expressions", () => {
  it('keeps one tab per expression and shows the selected one', async () => {
    const { host, posted } = fakeHost({ 1: { att: [2, 3], x: [4] } });
    const model = new TensorViewModel(host);
    await model.add('att', 1);
    await model.add('x', 1);
    await model.add('att', 1);
    assert.deepEqual(model.expressions, ['att', 'x']);
    assert.equal(model.selected, 0);
    const shows = posted.filter((m) => m.type === 'show');
    assert.deepEqual(shows.map((m) => [m.expression, (m.summary as { shape: number[] }).shape]), [['att', [2, 3]], ['x', [4]], ['att', [2, 3]]]);
    assert.deepEqual(posted.filter((m) => m.type === 'tabs').at(-1), { type: 'tabs', expressions: ['att', 'x'], selected: 0 });
  });

  it('evaluates the selected expression again in another frame and releases the value it showed', async () => {
    const { host, posted, fetched } = fakeHost({ 1: { x: [4] }, 2: { x: [7, 7] } });
    const model = new TensorViewModel(host);
    await model.add('x', 1);
    const first = model.opened?.id;
    await model.frameChanged(2);
    assert.deepEqual((posted.at(-1)?.summary as { shape: number[] }).shape, [7, 7]);
    assert.ok(fetched.includes(`/release ${first}`));
  });

  it('marks what it drew as the last stop while the program runs, and lets the value go', async () => {
    const { host, posted, fetched } = fakeHost({ 1: { x: [4] } });
    const model = new TensorViewModel(host);
    await model.add('x', 1);
    const id = model.opened?.id;
    model.ran();
    model.ran();
    assert.deepEqual(posted.filter((m) => m.type === 'stale').length, 1);
    assert.equal(model.opened, undefined);
    assert.deepEqual(fetched.filter((f) => f.startsWith('/release')), [`/release ${id}`]);
    await model.frameChanged(1);
    assert.equal(posted.at(-1)?.type, 'show');
    assert.equal(model.stale, false);
  });

  it('says why an expression has no value in a frame, and changes the selected expression', async () => {
    const { host, posted } = fakeHost({ 1: { x: [4], y: [5] } });
    const model = new TensorViewModel(host);
    await model.add('nope', 1);
    assert.deepEqual(posted.at(-1), { type: 'error', expression: 'nope', message: "NameError: name 'nope' is not defined" });
    await model.change('y');
    assert.deepEqual(model.expressions, ['y']);
    assert.deepEqual((posted.at(-1)?.summary as { shape: number[] }).shape, [5]);
  });

  it('removes a tab, showing the next one or nothing', async () => {
    const { host, posted } = fakeHost({ 1: { x: [4], y: [5] } });
    const model = new TensorViewModel(host);
    await model.add('x', 1);
    await model.add('y', 1);
    await model.remove(1);
    assert.deepEqual([model.expressions, model.selected], [['x'], 0]);
    assert.equal(posted.at(-1)?.expression, 'x');
    await model.remove(0);
    assert.deepEqual(posted.at(-1), { type: 'empty' });
    assert.equal(model.opened, undefined);
  });

  it('drops a value that a later stop made out of date before it came back', async () => {
    let release: () => void = () => undefined;
    const { host, posted, fetched } = fakeHost({ 1: { x: [4] }, 2: { x: [9] } });
    const slow: TensorHost = {
      ...host,
      async evaluate(expression, frameId) {
        if (frameId === 1) {
          await new Promise<void>((done) => (release = done));
        }
        return host.evaluate(expression, frameId);
      },
    };
    const model = new TensorViewModel(slow);
    const first = model.add('x', 1);
    await model.frameChanged(2);
    release();
    await first;
    assert.deepEqual(posted.filter((m) => m.type === 'show').map((m) => (m.summary as { shape: number[] }).shape), [[9]]);
    assert.ok(fetched.includes('/release v1'));
  });
});

/** Wait for what happens on the event loop (a server's answer) until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('View Tensor in the editor', () => {
  /** The parts of the `vscode` API the Tensor view uses, recording what it's asked. */
  function fakeEditor(url: string) {
    const evaluated: { expression: string; frameId?: number }[] = [];
    const posted: Record<string, unknown>[] = [];
    const commands: Record<string, (arg?: unknown) => Promise<void>> = {};
    const listeners: Record<string, (value: unknown) => void> = {};
    let tracker: { onWillReceiveMessage(m: unknown): void } | undefined;
    let provider: { resolveWebviewView(view: unknown): void } | undefined;
    let next = 0;
    const api = {
      debug: {
        activeStackItem: { frameId: 7 } as unknown,
        activeDebugSession: {
          async customRequest(_command: string, args: { expression: string; frameId?: number }) {
            evaluated.push(args);
            return { result: `'{"id": "v${next++}", "url": "${url}", "token": "tok"}'` };
          },
        },
        onDidChangeActiveStackItem: (f: (v: unknown) => void) => ((listeners.stack = f), { dispose() {} }),
        onDidTerminateDebugSession: (f: (v: unknown) => void) => ((listeners.end = f), { dispose() {} }),
        registerDebugAdapterTrackerFactory: (_type: string, factory: { createDebugAdapterTracker(): typeof tracker }) => {
          tracker = factory.createDebugAdapterTracker();
          return { dispose() {} };
        },
      },
      window: {
        activeTextEditor: {
          selection: { isEmpty: true, active: 3 },
          document: { getWordRangeAtPosition: () => 'range', getText: () => 'm.w' },
        },
        registerWebviewViewProvider: (_id: string, p: typeof provider) => ((provider = p), { dispose() {} }),
        showInformationMessage() {},
        showErrorMessage() {},
        showInputBox: async () => 'typed',
      },
      commands: {
        registerCommand: (id: string, f: (arg?: unknown) => Promise<void>) => ((commands[id] = f), { dispose() {} }),
        executeCommand: async () => undefined,
      },
    };
    registerTensorView(api as never, { subscriptions: [] } as never);
    provider?.resolveWebviewView({
      webview: { options: {}, html: '', onDidReceiveMessage() {}, postMessage: async (m: Record<string, unknown>) => posted.push(m) },
    });
    return { api, evaluated, posted, commands, listeners, tracker: () => tracker };
  }

  it('evaluates in the selected frame, follows the frame, and marks the values stale when the program runs', async () => {
    const asked: string[] = [];
    const server = http.createServer((request, response) => {
      asked.push(`${request.url?.split('?')[0]} ${request.headers['x-shapescript-token']}`);
      response.end(JSON.stringify(request.url?.startsWith('/summary') ? { shape: [2, 3] } : { released: true }));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as { port: number };
    try {
      const editor = fakeEditor(`http://127.0.0.1:${port}`);
      await editor.commands['shapescript.viewTensor']({ variable: { evaluateName: 'att' } });
      assert.deepEqual(editor.evaluated.map((e) => [e.expression, e.frameId]), [[openExpression('att'), 7]]);
      assert.deepEqual(editor.posted.map((m) => m.type), ['tabs', 'show']);
      editor.listeners.stack({ frameId: 9 });
      await until(() => editor.posted.length === 3);
      assert.equal(editor.evaluated.at(-1)?.frameId, 9);
      assert.equal(editor.posted.at(-1)?.type, 'show');
      editor.tracker()?.onWillReceiveMessage({ type: 'request', command: 'continue' });
      await until(() => asked.length === 4);
      assert.equal(editor.posted.at(-1)?.type, 'stale');
      assert.deepEqual(asked, ['/summary tok', '/summary tok', '/release tok', '/release tok']);
      // From the editor's context menu (which passes the file's URI): the name under the cursor.
      await editor.commands['shapescript.viewTensor']({ scheme: 'file' });
      assert.equal(editor.evaluated.at(-1)?.expression, openExpression('m.w'));
      // From the palette: the expression typed.
      await editor.commands['shapescript.viewTensor']();
      assert.equal(editor.evaluated.at(-1)?.expression, openExpression('typed'));
      assert.deepEqual(editor.posted.filter((m) => m.type === 'tabs').at(-1), { type: 'tabs', expressions: ['att', 'm.w', 'typed'], selected: 2 });
    } finally {
      server.close();
    }
  });
});
