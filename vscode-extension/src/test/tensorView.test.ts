import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openExpression, parseOpened, viewHtml } from '../tensorView';
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
