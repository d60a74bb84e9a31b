import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  architectureHtml,
  ArchitectureAnswer,
  contentSecurityPolicy,
  cursorAction,
  fitZoom,
  makeNonce,
  MAX_ZOOM,
  MIN_ZOOM,
  modelLines,
  nodeRange,
  otherDetail,
  zoomStep,
} from '../architecture_page';

const range = (line: number) => ({ start: { line, character: 4 }, end: { line, character: 9 } });

const ANSWER: ArchitectureAnswer = {
  model: 'Gpt',
  title: 'Architecture: Gpt',
  summary: 'Architecture of Gpt: Embedding → Linear',
  detail: 'layers',
  svg: '<svg></svg>',
  width: 700,
  height: 900,
  text: '',
  declaration: { uri: 'file:///gpt.ss', range: range(19) },
  links: [],
  nodes: [
    { id: 'forward.1', uri: 'file:///gpt.ss', range: range(56) },
    { id: 'forward.2', uri: 'file:///gpt.ss', range: range(57) },
  ],
};

describe('architecture page', () => {
  it('allows nothing but its own nonce-tagged script and style', () => {
    const policy = contentSecurityPolicy('abc');
    assert.match(policy, /default-src 'none'/);
    assert.match(policy, /script-src 'nonce-abc'(;|$)/);
    assert.match(policy, /style-src 'nonce-abc'(;|$)/);
    assert.doesNotMatch(policy, /unsafe|https?:|\*/);
    const html = architectureHtml('abc');
    assert.ok(html.includes(`content="${policy}"`));
    const scripts = html.match(/<script[^>]*>/g) ?? [];
    assert.deepEqual(scripts, ['<script nonce="abc">']);
    assert.doesNotMatch(html, /<script[^>]*src=|<link|https?:\/\//);
  });

  it('makes a fresh 32-character nonce', () => {
    let n = 0;
    const nonce = makeNonce(() => (n++ % 62) / 62);
    assert.equal(nonce.length, 32);
    assert.match(nonce, /^[A-Za-z0-9]+$/);
    assert.notEqual(makeNonce(), makeNonce());
  });

  it('zooms in steps within bounds', () => {
    assert.equal(zoomStep(1, 1), 1.2);
    assert.equal(zoomStep(1.2, -1), 1);
    assert.equal(zoomStep(MAX_ZOOM, 1), MAX_ZOOM);
    assert.equal(zoomStep(MIN_ZOOM, -1), MIN_ZOOM);
  });

  it('fits the drawing into both the width and the height of the view', () => {
    // Wide enough, and tall enough: the size it is.
    assert.equal(fitZoom(700, 500, 724, 524), 1);
    // The width allows 1, the height only half: the height decides.
    assert.equal(fitZoom(700, 2000, 724, 1024), 0.5);
    // The height allows 1, the width only half.
    assert.equal(fitZoom(1400, 500, 724, 900), 0.5);
    // A drawing far taller than the view still fits, below the zoom buttons' least step.
    const tall = fitZoom(724, 9000, 500, 424);
    assert.ok(tall * 9000 + 24 <= 424 && tall < MIN_ZOOM, String(tall));
    assert.equal(fitZoom(0, 500, 500, 500), 1);
    assert.equal(fitZoom(10, 10, 4000, 4000), MAX_ZOOM);
  });

  it('opens the tab by itself only when the setting asks, and follows the cursor once open', () => {
    const base = { followCursor: true, openAutomatically: false, open: false, closedByUser: false };
    assert.equal(cursorAction(base), 'none');
    assert.equal(cursorAction({ ...base, openAutomatically: true }), 'open');
    assert.equal(cursorAction({ ...base, openAutomatically: true, closedByUser: true }), 'none');
    assert.equal(cursorAction({ ...base, open: true }), 'follow');
    assert.equal(cursorAction({ ...base, open: true, followCursor: false }), 'none');
    assert.equal(cursorAction({ ...base, openAutomatically: true, followCursor: false }), 'none');
  });

  it('finds the model lines for the code lens', () => {
    const text = 'dim D = 8\n\n## Docs\nmodel Gpt:\n    param w: [D D] = ones\nmodel  Other :\n# model No:\n';
    assert.deepEqual(modelLines(text), [
      { line: 3, character: 6, name: 'Gpt' },
      { line: 5, character: 7, name: 'Other' },
    ]);
  });

  it('maps a clicked box to its code', () => {
    assert.deepEqual(nodeRange(ANSWER, 'forward.2'), { uri: 'file:///gpt.ss', range: range(57) });
    assert.equal(nodeRange(ANSWER, 'loss.9'), undefined);
  });

  it('switches between the two levels', () => {
    assert.deepEqual(otherDetail('layers'), { detail: 'operations', label: 'Every operation' });
    assert.deepEqual(otherDetail('operations'), { detail: 'layers', label: 'Layers' });
  });
});
