import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CATEGORICAL, MAX_SCALE, TILE, arrangementKey, atFor, cellFlags, cellStep, chooseLayout, clampViewport, colorOf,
  colorRange, describeCell, fitWhole, panBy, parseType, recolor, roleOf, rolesFor, shortestValue, tileKey,
  splitLayout, tileQuery, tileRequests, toViewIndex, withRole, zoomAt,
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
    assert.equal(tileKey(1, 2, [3], tiles[0], '1:2,3/3:norm'), '1:2,3/3:norm|1/2/3/2048,1024/1');
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
    assert.deepEqual(parseType('[b n m] Prob over m'), { axes: ['b', 'n', 'm'], domain: 'Prob', size: undefined, over: 'm' });
    assert.deepEqual(parseType('[n] Index[V]'), { axes: ['n'], domain: 'Index', size: 'V', over: undefined });
    assert.deepEqual(parseType('[b (gh gw) D]').axes, ['b', '(gh gw)', 'D']);
    assert.deepEqual(parseType('[3 h w] u8'), { axes: ['3', 'h', 'w'], domain: undefined, size: undefined, over: undefined });
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
    assert.deepEqual([other.channels, other.multiples, other.sliders], [-1, -1, [0]]);
    const batch = chooseLayout([4, 3, 32, 32], '[b c h w]', 'float32');
    assert.deepEqual([batch.channels, batch.multiples, batch.sliders], [-1, 0, [1]]);
  });

  it('makes a large leading axis a slider, not small multiples', () => {
    const layout = chooseLayout([100, 5, 5], undefined, 'float32');
    assert.deepEqual([layout.multiples, layout.sliders], [-1, [0]]);
  });

  it('draws a grid of patches as its rows and columns of tokens, each cell the norm over D', () => {
    const groups = { 1: [['gh', 2], ['gw', 3]] as [string, number][] };
    const layout = chooseLayout([4, 6, 8], '[b (gh gw) D]', 'float32', groups);
    assert.deepEqual(layout.axes, ['b', 'gh', 'gw', 'D']);
    assert.deepEqual(layout.shape, [4, 2, 3, 8]);
    assert.deepEqual([layout.rows, layout.cols, layout.reduce, layout.multiples, layout.sliders], [1, 2, { 3: 'norm' }, 0, []]);
    assert.equal(layout.colors, 'sequential');
    const at = atFor(4, 1, 2, { 0: 3 }, [3]);
    assert.deepEqual(at, [3]);
    assert.deepEqual(tileQuery(layout, at, { row: 0, col: 0, row_step: 1, col_step: 1 }), {
      rows: 1, cols: 2, at: '3', split: '1:2,3', reduce: '3:norm', row: 0, col: 0, row_step: 1, col_step: 1,
    });
    assert.equal(arrangementKey(layout), '1:2,3/3:norm');
    assert.deepEqual(toViewIndex(layout, [3, 5, 7]), [3, 1, 2, 7]);
    // A patchify's result: the tokens' grid, each cell the norm over the patch's pixels.
    const patches = chooseLayout([2, 12, 48], '[b (h w) (p1 p2 c)]', 'float32', { 1: [['h', 3], ['w', 4]], 2: [['p1', 4], ['p2', 4], ['c', 3]] });
    assert.deepEqual([patches.axes, patches.rows, patches.cols, patches.reduce], [['b', 'h', 'w', '(p1 p2 c)'], 1, 2, { 3: 'norm' }]);
    // Without the parts' sizes the group stays one axis.
    assert.deepEqual(chooseLayout([4, 6, 8], '[b (gh gw) D]', 'float32').split, []);
  });

  it('colors Index values with at most 8 values from the categorical palette', () => {
    const few = chooseLayout([4, 10], '[b n] Index[V]', 'int64', {}, 5);
    assert.deepEqual([few.colors, few.range], ['categorical', [0, 4]]);
    assert.deepEqual(colorOf(2, 0, 4, 'categorical', false), CATEGORICAL[2]);
    assert.equal(chooseLayout([4, 10], '[b n] Index[8]', 'int64').colors, 'categorical');
    assert.equal(chooseLayout([4, 10], '[b n] Index[V]', 'int64', {}, 50000).colors, 'sequential');
  });

  it('spans the colors over the percentiles while a cell is an element, and over the shown cells otherwise', () => {
    const plain = chooseLayout([64, 32], '[n D]', 'float32');
    assert.deepEqual(colorRange(plain, [-3, 2], [-40, 50], true), [-3, 3]);
    assert.deepEqual(colorRange(plain, [-3, 2], [-40, 50], false), [-50, 50]);
    const positive = chooseLayout([64, 32], '[n D] NonNeg', 'float32');
    assert.deepEqual(colorRange(positive, [0.5, 2], [0, 9], true), [0.5, 2]);
    const prob = chooseLayout([64, 32], '[n m] Prob over m', 'float32');
    assert.deepEqual(colorRange(prob, [0, 0.2], [0, 0.3], true), [0, 1]);
    const grid = chooseLayout([4, 6, 8], '[b (gh gw) D]', 'float32', { 1: [['gh', 2], ['gw', 3]] });
    assert.deepEqual(colorRange(grid, [-1, 1], [2, 7], true), [2, 7]);
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
    // The server's count of elements outside the domain wins: 0.5 is in Binary's range but not 0 or 1.
    assert.deepEqual(cellFlags(0, 0, 0, 1, 'Binary', 1), { bad: false, outside: true });
    assert.deepEqual(cellFlags(0, 0, 0, 1, 'Binary', 0), { bad: false, outside: false });
  });
});

describe("the Tensor view's axis roles", () => {
  const att = chooseLayout([2, 8, 16, 16], '[b H n m] Prob over m', 'float32');

  it('names each axis by its role and offers channels only for 3 or 4', () => {
    assert.deepEqual([0, 1, 2, 3].map((a) => roleOf(att, a)), ['slider', 'multiples', 'rows', 'cols']);
    assert.ok(!rolesFor(att, 1).includes('channels'));
    assert.ok(rolesFor(chooseLayout([3, 8, 8], '[c h w]', 'float32'), 0).includes('channels'));
    assert.deepEqual(rolesFor(chooseLayout([9], undefined, 'float32'), 0), ['cols']);
  });

  it('swaps a role with the axis that had it', () => {
    const swapped = withRole(att, 1, 'rows');
    assert.deepEqual([swapped.rows, swapped.cols, swapped.multiples, swapped.sliders], [1, 3, 2, [0]]);
    const transposed = withRole(att, 2, 'cols');
    assert.deepEqual([transposed.rows, transposed.cols], [3, 2]);
  });

  it('reduces an axis, and gives its place on the heatmap to a slider', () => {
    const mean = withRole(att, 0, 'mean');
    assert.deepEqual([mean.reduce, mean.sliders, mean.multiples], [{ 0: 'mean' }, [], 1]);
    assert.deepEqual(atFor(4, mean.rows, mean.cols, { 1: 2 }, [0]), [2]);
    assert.equal(tileQuery(mean, [2], { row: 0, col: 0, row_step: 1, col_step: 1 }).reduce, '0:mean');
    const away = withRole(att, 2, 'max');
    assert.deepEqual([away.rows, away.reduce, away.sliders], [0, { 2: 'max' }, []]);
    // With nothing to take its place, the rows stay.
    const matrix = chooseLayout([4, 5], '[n D]', 'float32');
    assert.equal(withRole(matrix, 0, 'slider'), matrix);
  });

  it("colors a reduction by its values, not the domain's, and goes back to the type's colors", () => {
    const reduced = recolor(withRole(att, 1, 'sum'), att);
    assert.deepEqual([reduced.colors, reduced.range], ['sequential', undefined]);
    const diverging = chooseLayout([4, 5, 6], '[b n D]', 'float32');
    assert.equal(recolor(withRole(diverging, 0, 'mean'), diverging).colors, 'diverging');
    assert.equal(recolor(withRole(diverging, 0, 'norm'), diverging).colors, 'sequential');
    const back = recolor(withRole(withRole(att, 1, 'sum'), 1, 'multiples'), att);
    assert.deepEqual([back.colors, back.range], ['sequential', [0, 1]]);
  });
});

describe("the Tensor view's group axes", () => {
  const heads = { 2: [['H', 4], ['Dh', 8]] as [string, number][] };

  it('splits a group into its parts when asked, and joins it again', () => {
    const whole = splitLayout([2, 16, 32], '[b n (H Dh)]', 'float32', heads, null, []);
    assert.deepEqual([whole.axes, whole.rows, whole.cols, whole.split], [['b', 'n', '(H Dh)'], 1, 2, []]);
    const split = splitLayout([2, 16, 32], '[b n (H Dh)]', 'float32', heads, null, [2]);
    assert.deepEqual([split.axes, split.shape, split.rows, split.cols], [['b', 'n', 'H', 'Dh'], [2, 16, 4, 8], 2, 3]);
    assert.deepEqual([split.multiples, split.sliders], [1, [0]]);
    assert.equal(tileQuery(split, [0, 0], { row: 0, col: 0, row_step: 1, col_step: 1 }).split, '2:4,8');
  });

  it("keeps the patch grid the type chose, and can show its tokens whole", () => {
    const groups = { 1: [['gh', 2], ['gw', 3]] as [string, number][] };
    const grid = splitLayout([4, 6, 8], '[b (gh gw) D]', 'float32', groups, null, [1]);
    assert.deepEqual(grid.reduce, { 3: 'norm' });
    const whole = splitLayout([4, 6, 8], '[b (gh gw) D]', 'float32', groups, null, []);
    assert.deepEqual([whole.axes, whole.rows, whole.cols, whole.reduce, whole.colors], [['b', '(gh gw)', 'D'], 1, 2, {}, 'diverging']);
  });
});
