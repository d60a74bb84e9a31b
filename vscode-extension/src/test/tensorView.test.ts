import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openExpression, parseOpened, viewHtml } from '../tensorView';
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
