import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_SCALE, TILE, atFor, cellFlags, cellStep, chooseLayout, clampViewport, describeCell, fitWhole, panBy,
  parseType, shortestValue, tileKey, tileRequests, zoomAt,
} from '../tensorTiles';

describe('the Tensor view asks for the tiles it shows', () => {
  it('makes a cell cover a power of two of elements, at least a pixel', () => {
    assert.equal(cellStep(4), 1);
    assert.equal(cellStep(1), 1);
    assert.equal(cellStep(0.5), 2);
    assert.equal(cellStep(0.3), 4);
    assert.equal(cellStep(256 / 100_000), 512);
  });

  it('covers the whole of a large plane with one tile when zoomed out', () => {
    const view = fitWhole(100_000, 50_000, 256, 256);
    assert.equal(view.scale, 256 / 100_000);
    assert.deepEqual(tileRequests(view, 100_000, 50_000), [{ row: 0, col: 0, row_step: 512, col_step: 512 }]);
  });

  it('asks only for the tiles under the viewport, aligned to the tile span', () => {
    const view = { row: 250, col: 500, scale: 1, width: 200, height: 10 };
    assert.deepEqual(tileRequests(view, 1000, 1000), [
      { row: 0, col: 256, row_step: 1, col_step: 1 },
      { row: 0, col: 512, row_step: 1, col_step: 1 },
      { row: 256, col: 256, row_step: 1, col_step: 1 },
      { row: 256, col: 512, row_step: 1, col_step: 1 },
    ]);
  });

  it('never asks for a tile past the end of the plane', () => {
    const view = clampViewport({ row: 0, col: 0, scale: 1, width: 600, height: 600 }, 300, 300);
    const tiles = tileRequests(view, 300, 300);
    assert.deepEqual(tiles.map((t) => [t.row, t.col]), [[0, 0], [0, 256], [256, 0], [256, 256]]);
  });

  it('zooms in to single elements around the mouse, keeping the element under it', () => {
    let view = fitWhole(4096, 4096, 256, 256);
    assert.equal(tileRequests(view, 4096, 4096)[0].row_step, 16);
    for (let i = 0; i < 12; i++) {
      view = zoomAt(view, 2, 72, 136, 4096, 4096);
    }
    assert.equal(view.scale, MAX_SCALE);
    assert.ok(Math.abs(view.col + 72 / view.scale - 1152) < 1e-6);
    assert.ok(Math.abs(view.row + 136 / view.scale - 2176) < 1e-6);
    const tiles = tileRequests(view, 4096, 4096);
    assert.deepEqual(tiles, [{ row: 8 * TILE, col: 4 * TILE, row_step: 1, col_step: 1 }]);
    assert.equal(tileKey(1, 2, [3], tiles[0]), '1/2/3/2048,1024/1');
  });

  it('zooms out no further than the whole plane, and keeps it centred', () => {
    const view = zoomAt(fitWhole(10, 20, 200, 200), 0.01, 0, 0, 10, 20);
    assert.equal(view.scale, 10);
    assert.equal(view.col, 0);
    assert.equal(view.row, -5);
  });

  it('pans with the drag and stops at the edges', () => {
    const view = { row: 100, col: 100, scale: 2, width: 100, height: 100 };
    assert.deepEqual(panBy(view, 20, -10, 1000, 1000), { ...view, row: 105, col: 90 });
    assert.deepEqual(panBy(view, 10_000, 10_000, 1000, 1000), { ...view, row: 0, col: 0 });
    assert.deepEqual(panBy(view, -10_000, -10_000, 1000, 1000), { ...view, row: 950, col: 950 });
  });

  it('fixes the other axes with `at`, in axis order', () => {
    assert.deepEqual(atFor(4, 2, 3, { 1: 5 }), [0, 5]);
    assert.deepEqual(atFor(3, 0, 2, {}), [0]);
  });
});

describe("the Tensor view's layout comes from the type", () => {
  it('reads the type the checker writes', () => {
    assert.deepEqual(parseType('[b n m] Prob over m'), { axes: ['b', 'n', 'm'], domain: 'Prob', over: 'm' });
    assert.deepEqual(parseType('[n] Index[V]'), { axes: ['n'], domain: 'Index', over: undefined });
    assert.deepEqual(parseType(undefined), {});
  });

  it('draws a matrix as a heatmap of its two axes', () => {
    const layout = chooseLayout([64, 32], '[n D]', 'float32');
    assert.deepEqual([layout.kind, layout.rows, layout.cols, layout.multiples, layout.colors], ['heatmap', 0, 1, -1, 'diverging']);
  });

  it('puts a Prob over m on the columns, the axis before on the rows, and H as small multiples', () => {
    const layout = chooseLayout([2, 8, 16, 16], '[b H n m] Prob over m', 'float32');
    assert.deepEqual([layout.rows, layout.cols, layout.multiples, layout.sliders], [2, 3, 1, [0]]);
    assert.deepEqual([layout.colors, layout.range], ['sequential', [0, 1]]);
    const across = chooseLayout([16, 4, 16], '[m b n] Prob over m', 'float32');
    assert.deepEqual([across.rows, across.cols], [2, 0]);
  });

  it('draws an axis of 3 before the last two of Unit or u8 values as color channels, and a slider otherwise', () => {
    const image = chooseLayout([4, 3, 32, 32], '[b 3 h w] Unit', 'float32');
    assert.deepEqual([image.channels, image.rows, image.cols, image.multiples, image.sliders], [1, 2, 3, 0, []]);
    assert.deepEqual(chooseLayout([100, 3, 8, 8], '[b 3 h w] Unit', 'float32').sliders, [0]);
    assert.equal(chooseLayout([3, 32, 32], undefined, 'uint8').channels, 0);
    const other = chooseLayout([3, 32, 32], '[c h w]', 'float32');
    assert.deepEqual([other.channels, other.multiples], [-1, 0]);
  });

  it('makes a large leading axis a slider, not small multiples', () => {
    const layout = chooseLayout([100, 5, 5], undefined, 'float32');
    assert.deepEqual([layout.multiples, layout.sliders], [-1, [0]]);
  });

  it('draws masks in two colors, one axis as a line and a scalar as its value', () => {
    assert.equal(chooseLayout([4, 4], '[n m] Mask', 'bool').colors, 'mask');
    assert.equal(chooseLayout([7], undefined, 'float32').kind, 'line');
    assert.equal(chooseLayout([], undefined, 'float32').kind, 'scalar');
  });
});

describe("the Tensor view's cells", () => {
  it('names a cell by its axes', () => {
    assert.equal(describeCell('att', ['b', 'H', 'n', 'm'], [0, 2, 20, 41]), 'att[b=0, H=2, n=20, m=41]');
  });

  it('writes a value with the fewest digits its dtype needs', () => {
    assert.equal(shortestValue(Math.fround(0.1), 'float32'), '0.1');
    assert.equal(shortestValue(Math.fround(0.1), 'float64'), String(Math.fround(0.1)));
    assert.equal(shortestValue(0.333984375, 'bfloat16'), '0.334');
    assert.equal(shortestValue(3, 'float32'), '3');
    assert.equal(shortestValue(-Infinity, 'float32'), '-∞');
  });

  it('flags NaN and values outside the domain', () => {
    assert.deepEqual(cellFlags(1, 0, 0, 0.5, 'Prob'), { bad: true, outside: false });
    assert.deepEqual(cellFlags(0, 0, -0.1, 0.5, 'Prob'), { bad: false, outside: true });
    assert.deepEqual(cellFlags(0, 0, -5, 5, undefined), { bad: false, outside: false });
    assert.deepEqual(cellFlags(0, 0, -5, 0.5, 'LogProb'), { bad: false, outside: true });
  });
});
