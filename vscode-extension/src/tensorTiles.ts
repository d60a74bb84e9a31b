// What the Tensor view draws and which tiles it asks for: pure functions, with no VS Code
// and no DOM, so they are tested in Node and also run inside the view's page (its script
// is built from their source, see tensorView.ts).

// The functions below use these through local names: an exported const is read as
// `exports.X` in the compiled module, which the page (where they also run) doesn't have.
const TILE_SIDE = 256;
const MOST_SCALE = 96;
const NON_NEGATIVE_DOMAINS = ['Prob', 'Unit', 'NonNeg', 'Pos', 'LogProb', 'Index'];
const CATEGORICAL_COLORS: [number, number, number][] = [
  [31, 119, 180], [255, 127, 14], [44, 160, 44], [214, 39, 40], [148, 103, 189], [140, 86, 75], [227, 119, 194], [127, 127, 127],
];
const REDUCTION_NAMES = ['mean', 'max', 'min', 'sum', 'absmax', 'norm', 'std'];
/** Cells a tile has along each side (the server's TILE). */
export const TILE = TILE_SIDE;
/** The most pixels one element is drawn with. */
export const MAX_SCALE = MOST_SCALE;
/** Domains whose values can't be negative: drawn on a sequential scale. */
export const NON_NEGATIVE = NON_NEGATIVE_DOMAINS;
/** The categorical palette of Index[V] values with at most 8 values (a color-blind-safe order). */
export const CATEGORICAL = CATEGORICAL_COLORS;
/** The reductions an axis can have: largest |x| is `absmax`. */
export const REDUCTIONS = REDUCTION_NAMES;

/** What the view shows of a plane: the element at its top left, pixels per element, its size in pixels. */
export interface Viewport {
  row: number;
  col: number;
  scale: number;
  width: number;
  height: number;
}

/** One tile to ask the server for: its first element and the elements a cell covers. */
export interface TileRequest {
  row: number;
  col: number;
  row_step: number;
  col_step: number;
}

/** The elements one cell covers along an axis at `scale` pixels per element: a power of two, so a cell is at least a pixel. */
export function cellStep(scale: number): number {
  let step = 1;
  while (step * scale < 1 && step < 2 ** 40) {
    step *= 2;
  }
  return step;
}

/** The viewport that shows all of a rows × cols plane in width × height pixels. */
export function fitWhole(rows: number, cols: number, width: number, height: number): Viewport {
  const scale = Math.min(MOST_SCALE, width / Math.max(cols, 1), height / Math.max(rows, 1));
  return { row: 0, col: 0, scale, width, height };
}

/** The viewport kept inside the plane (or centred where the plane is smaller than it), its scale between the whole plane and MOST_SCALE. */
export function clampViewport(view: Viewport, rows: number, cols: number): Viewport {
  const least = Math.min(MOST_SCALE, view.width / Math.max(cols, 1), view.height / Math.max(rows, 1));
  const scale = Math.max(least, Math.min(MOST_SCALE, view.scale));
  const place = (start: number, size: number, pixels: number) => {
    const shown = pixels / scale;
    return shown >= size ? (size - shown) / 2 : Math.max(0, Math.min(size - shown, start));
  };
  return { ...view, scale, row: place(view.row, rows, view.height), col: place(view.col, cols, view.width) };
}

/** Zoom by `factor` keeping the element under pixel (x, y) where it is. */
export function zoomAt(view: Viewport, factor: number, x: number, y: number, rows: number, cols: number): Viewport {
  const underRow = view.row + y / view.scale;
  const underCol = view.col + x / view.scale;
  const scaled = clampViewport({ ...view, scale: view.scale * factor }, rows, cols);
  return clampViewport({ ...scaled, row: underRow - y / scaled.scale, col: underCol - x / scaled.scale }, rows, cols);
}

/** Pan by a drag of (dx, dy) pixels: the plane follows the mouse. */
export function panBy(view: Viewport, dx: number, dy: number, rows: number, cols: number): Viewport {
  return clampViewport({ ...view, row: view.row - dy / view.scale, col: view.col - dx / view.scale }, rows, cols);
}

/** The tiles, at the step the scale needs, that cover what the viewport shows of a rows × cols plane. */
export function tileRequests(view: Viewport, rows: number, cols: number): TileRequest[] {
  const step = cellStep(view.scale);
  const span = TILE_SIDE * step;
  const first = (start: number) => Math.max(0, Math.floor(start / span));
  const last = (start: number, pixels: number, size: number) =>
    Math.min(Math.ceil(size / span) - 1, Math.floor((start + pixels / view.scale - 1e-9) / span));
  const found: TileRequest[] = [];
  for (let r = first(view.row); r <= last(view.row, view.height, rows); r++) {
    for (let c = first(view.col); c <= last(view.col, view.width, cols); c++) {
      found.push({ row: r * span, col: c * span, row_step: step, col_step: step });
    }
  }
  return found;
}

/** The key a tile is cached under: the axes, the indices of the other axes, and the request. */
export function tileKey(rowsAxis: number, colsAxis: number, at: number[], request: TileRequest, arrangement = ''): string {
  return `${arrangement ? arrangement + '|' : ''}${rowsAxis}/${colsAxis}/${at.join(',')}/${request.row},${request.col}/${request.row_step}`;
}

/** What a type's text says: its axes (a group such as `(gh gw)` is one), domain, Index's size, and the axis `over` names. */
export interface ParsedType {
  axes?: string[];
  domain?: string;
  size?: string;
  over?: string;
}

/** Read a type's text, as the checker writes it: `[b n m] Prob over m`, `[b (gh gw) D]`, `[n] Index[V]`. */
export function parseType(text: string | null | undefined): ParsedType {
  const match = /^\s*\[([^\]]*)\]\s*([A-Za-z]\w*)?(?:\[([^\]]*)\])?(?:\s+over\s+(\w+))?/.exec(text ?? '');
  if (!match) {
    return {};
  }
  const dtypes = ['u8', 'i8', 'i16', 'i32', 'i64', 'f16', 'bf16', 'f32', 'f64', 'bool'];
  const domain = match[2] !== undefined && dtypes.includes(match[2]) ? undefined : match[2];
  return { axes: match[1].match(/\([^)]*\)|\S+/g) ?? [], domain, size: match[3], over: match[4] };
}

/** The parts of a group axis whose sizes the server found: {axis: [[name, size], ...]}. */
export type Groups = Record<string, [string, number][]>;

/** How the view draws a value: which axes are the heatmap's, and what the others do. */
export interface Layout {
  kind: 'scalar' | 'line' | 'heatmap';
  /** The axes the view numbers, after its group axes are split: names and sizes. */
  axes: string[];
  shape: number[];
  /** The value's axes split into their parts ({axis of the value, its parts' sizes}), in axis order. */
  split: { axis: number; sizes: number[] }[];
  /** The heatmap's rows and columns (axes of the view); -1 where there's none. */
  rows: number;
  cols: number;
  /** The axis drawn as a heatmap for each of its indices, or -1. */
  multiples: number;
  /** The axis of an image's 3 color channels, or -1. */
  channels: number;
  /** The other axes, each with a slider that starts at 0. */
  sliders: number[];
  /** Axes made one value by a reduction: {axis: 'norm'}. */
  reduce: Record<number, string>;
  colors: 'mask' | 'sequential' | 'diverging' | 'categorical';
  /** The domain's range where it's bounded. */
  range?: [number, number];
  domain?: string;
}

/** The axes and shape once the group axes in `split` are split into their parts. */
export function splitShape(shape: number[], axes: string[], groups: Groups, split: number[]): { axes: string[]; shape: number[]; splits: Layout['split'] } {
  const names: string[] = [];
  const sizes: number[] = [];
  const splits: Layout['split'] = [];
  shape.forEach((size, axis) => {
    const parts = groups[String(axis)];
    if (split.includes(axis) && parts) {
      splits.push({ axis, sizes: parts.map((part) => part[1]) });
      parts.forEach(([name, partSize]) => { names.push(name); sizes.push(partSize); });
    } else {
      names.push(axes[axis]);
      sizes.push(size);
    }
  });
  return { axes: names, shape: sizes, splits };
}

/** The layout the value's type picks (its dtype and shape alone when it has no type). */
export function chooseLayout(shape: number[], typeText: string | null | undefined, dtype: string, groups: Groups = {}, domainSize?: number | null): Layout {
  const type = parseType(typeText);
  const dims = shape.length;
  const written = type.axes && type.axes.length === dims ? type.axes : shape.map((_, i) => String(i));
  const domain = type.domain;
  const values = domainSize ?? (type.size !== undefined && /^\d+$/.test(type.size) ? Number(type.size) : undefined);
  let colors: Layout['colors'] = domain === 'Mask' || domain === 'Binary' || dtype === 'bool' ? 'mask'
    : domain === 'Index' && values !== undefined && values <= 8 ? 'categorical'
      : NON_NEGATIVE_DOMAINS.includes(domain ?? '') ? 'sequential' : 'diverging';
  const range: [number, number] | undefined = domain === 'Prob' || domain === 'Unit' || colors === 'mask' ? [0, 1]
    : domain === 'Signed' ? [-1, 1] : colors === 'categorical' ? [0, (values ?? 1) - 1] : undefined;
  const plain = { axes: written, shape, split: [] as Layout['split'], reduce: {} as Record<number, string> };
  const base = { multiples: -1, channels: -1, sliders: [] as number[], colors, range, domain, ...plain };
  if (dims === 0) {
    return { ...base, kind: 'scalar', rows: -1, cols: -1 };
  }
  if (dims === 1) {
    return { ...base, kind: 'line', rows: -1, cols: 0 };
  }
  // A grid of patches: an axis of two named parts followed by one more, [b (gh gw) D].
  const grid = groups[String(dims - 2)];
  if (grid && grid.length === 2 && grid.every(([name]) => !/^\d+$/.test(name))) {
    const view = splitShape(shape, written, groups, [dims - 2]);
    const rows = dims - 2;
    const cols = dims - 1;
    const reduce = { [dims]: 'norm' };
    colors = colors === 'mask' || colors === 'categorical' ? colors : 'sequential';
    return finishLayout({ ...base, colors, range: undefined, axes: view.axes, shape: view.shape, split: view.splits, reduce }, rows, cols, -1, []);
  }
  let rows = dims - 2;
  let cols = dims - 1;
  let channels = -1;
  const slid: number[] = [];
  const over = type.over !== undefined ? written.indexOf(type.over)
    : domain === 'Prob' || domain === 'LogProb' || domain === 'Logit' ? dims - 1 : -1;
  if ((domain === 'Prob' || domain === 'LogProb' || domain === 'Logit') && over >= 0) {
    cols = over;
    rows = over > 0 ? over - 1 : dims - 1;
  } else if (dims >= 3 && shape[dims - 3] === 3) {
    if (domain === 'Unit' || dtype === 'uint8') {
      channels = dims - 3;
    } else {
      slid.push(dims - 3);
    }
  }
  return finishLayout(base, rows, cols, channels, slid);
}

/** The layout with small multiples (the nearest axis before the rows, of 2 to 16) and sliders for the rest. */
export function finishLayout(base: Omit<Layout, 'kind' | 'rows' | 'cols' | 'channels' | 'multiples' | 'sliders'> & { multiples: number; sliders: number[]; channels: number }, rows: number, cols: number, channels: number, slid: number[]): Layout {
  const shape = base.shape;
  const rest = shape.map((_, i) => i).filter((i) => i !== rows && i !== cols && i !== channels && !(i in base.reduce));
  const before = rest.filter((i) => i < Math.min(rows, cols) && !slid.includes(i));
  const nearest = before.length ? before[before.length - 1] : -1;
  const multiples = nearest >= 0 && shape[nearest] >= 2 && shape[nearest] <= 16 ? nearest : -1;
  return { ...base, kind: 'heatmap', rows, cols, channels, multiples, sliders: rest.filter((i) => i !== multiples) };
}

/** What a tile request sends beside its region: the axes, the other axes' indices, the splits and reductions. */
export function tileQuery(layout: Layout, at: number[], request: TileRequest): Record<string, string | number> {
  const query: Record<string, string | number> = layout.kind === 'line'
    ? { rows: 0, cols: 1, at: '' } : { rows: layout.rows, cols: layout.cols, at: at.join(',') };
  if (layout.split.length) {
    query.split = layout.split.map((s) => `${s.axis}:${s.sizes.join(',')}`).join(';');
  }
  const reduce = Object.entries(layout.reduce);
  if (reduce.length) {
    query.reduce = reduce.map(([axis, how]) => `${axis}:${how}`).join(';');
  }
  return { ...query, ...request };
}

/** The splits and reductions a tile's key carries, so tiles of another arrangement aren't reused. */
export function arrangementKey(layout: Layout): string {
  const query = tileQuery(layout, [], { row: 0, col: 0, row_step: 1, col_step: 1 });
  return `${query.split ?? ''}/${query.reduce ?? ''}`;
}

/** An element's index in the value, as the view numbers its axes (a split axis's index becomes its parts'). */
export function toViewIndex(layout: Layout, index: number[]): number[] {
  const found: number[] = [];
  index.forEach((i, axis) => {
    const split = layout.split.find((s) => s.axis === axis);
    if (!split) {
      found.push(i);
      return;
    }
    let rest = i;
    const parts = split.sizes.map((_, k) => {
      const inner = split.sizes.slice(k + 1).reduce((a, b) => a * b, 1);
      const part = Math.floor(rest / inner);
      rest -= part * inner;
      return part;
    });
    found.push(...parts);
  });
  return found;
}

/** The range the colors span: the domain's when it's bounded; else the 0.5th to 99.5th
 * percentiles while each cell is one element, and the shown cells' range when cells are
 * reductions or cover several elements. A diverging scale is centred on 0. */
export function colorRange(layout: Layout, percentiles: [number, number] | null | undefined, shownRange: [number, number] | null, oneElement: boolean): [number, number] {
  if (layout.range) {
    return layout.range;
  }
  const reduced = Object.keys(layout.reduce).length > 0;
  const [lo, hi] = (oneElement && !reduced && percentiles) || shownRange || [0, 1];
  if (layout.colors === 'diverging') {
    const m = Math.max(Math.abs(lo), Math.abs(hi)) || 1;
    return [-m, m];
  }
  return hi > lo ? [lo, hi] : [lo, lo + 1];
}

/** The `at` a tile request sends: the index of each axis other than rows and cols, in order. */
export function atFor(dims: number, rows: number, cols: number, index: Record<number, number>, reduced: number[] = []): number[] {
  const at: number[] = [];
  for (let axis = 0; axis < dims; axis++) {
    if (axis !== rows && axis !== cols && !reduced.includes(axis)) {
      at.push(index[axis] ?? 0);
    }
  }
  return at;
}

/** Where a cell is, by axis name: att[b=0, H=2, n=20, m=41]. */
export function describeCell(name: string, axes: string[], index: number[]): string {
  return `${name}[${axes.map((axis, i) => `${axis}=${index[i]}`).join(', ')}]`;
}

/** The value written with the fewest digits that read back as the same number in `dtype`. */
export function shortestValue(value: number, dtype: string): string {
  if (!Number.isFinite(value)) {
    return Number.isNaN(value) ? 'NaN' : value > 0 ? '∞' : '-∞';
  }
  if (Number.isInteger(value) && Math.abs(value) < 1e15) {
    return String(value);
  }
  const toDtype = (v: number): number => {
    if (dtype === 'float32') {
      return Math.fround(v);
    }
    if (dtype === 'bfloat16' || dtype === 'float16') {
      const bits = dtype === 'bfloat16' ? 8 : 11;
      const exponent = Math.floor(Math.log2(Math.abs(v)));
      const unit = 2 ** (exponent - bits + 1);
      return Math.round(v / unit) * unit;
    }
    return v;
  };
  const target = toDtype(value);
  for (let digits = 1; digits < 17; digits++) {
    const written = Number(value.toPrecision(digits));
    if (toDtype(written) === target) {
      return String(written);
    }
  }
  return String(value);
}

/** The flags of a cell: NaN or ±∞, values outside the domain (the server's count of them, else its range). */
export function cellFlags(nan: number, inf: number, least: number | null, greatest: number | null, domain: string | undefined, outsideCount?: number): { bad: boolean; outside: boolean } {
  if (outsideCount !== undefined) {
    return { bad: nan + inf > 0, outside: outsideCount > 0 };
  }
  const [low, high] = domain === 'Prob' || domain === 'Unit' ? [0, 1]
    : domain === 'NonNeg' ? [0, Infinity] : domain === 'LogProb' ? [-Infinity, 0] : [-Infinity, Infinity];
  const outside = (least !== null && least < low) || (greatest !== null && greatest > high);
  return { bad: nan + inf > 0, outside };
}

/** The color of a value in the layout's scale, from lo to hi; dark themes start from a dark background. */
export function colorOf(value: number, lo: number, hi: number, colors: Layout['colors'], dark: boolean): [number, number, number] {
  if (colors === 'categorical') {
    const color = CATEGORICAL_COLORS[Math.max(0, Math.min(CATEGORICAL_COLORS.length - 1, Math.round(value)))];
    return dark ? color.map((c) => Math.round(c * 0.85 + 20)) as [number, number, number] : color;
  }
  if (colors === 'mask') {
    return value >= 0.5 ? (dark ? [230, 230, 230] : [40, 40, 40]) : (dark ? [40, 40, 40] : [235, 235, 235]);
  }
  const background: [number, number, number] = dark ? [30, 30, 30] : [255, 255, 255];
  const mix = (to: [number, number, number], t: number): [number, number, number] =>
    [0, 1, 2].map((i) => Math.round(background[i] + (to[i] - background[i]) * t)) as [number, number, number];
  if (colors === 'sequential') {
    const t = hi > lo ? Math.max(0, Math.min(1, (value - lo) / (hi - lo))) : 0;
    return mix(dark ? [250, 200, 80] : [20, 60, 160], t);
  }
  const m = Math.max(Math.abs(lo), Math.abs(hi)) || 1;
  const t = Math.max(-1, Math.min(1, value / m));
  return t < 0 ? mix([40, 90, 220], -t) : mix([215, 40, 40], t);
}

/** What an axis does in the view: the heatmap's rows or columns, small multiples, color
 * channels, a slider, or a reduction over it (`mean`, `norm`, ...). */
export type Role = 'rows' | 'cols' | 'multiples' | 'channels' | 'slider' | string;

/** The role an axis of the view has in a layout. */
export function roleOf(layout: Layout, axis: number): Role {
  if (axis === layout.rows) return 'rows';
  if (axis === layout.cols) return 'cols';
  if (axis === layout.multiples) return 'multiples';
  if (axis === layout.channels) return 'channels';
  return layout.reduce[axis] ?? 'slider';
}

/** The roles an axis can take: channels only for an axis of 3 or 4, and none but its own for a line's axis. */
export function rolesFor(layout: Layout, axis: number): Role[] {
  if (layout.kind !== 'heatmap') {
    return [roleOf(layout, axis)];
  }
  const size = layout.shape[axis];
  const roles: Role[] = ['rows', 'cols', 'multiples'];
  if (size === 3 || size === 4) {
    roles.push('channels');
  }
  return [...roles, 'slider', ...REDUCTION_NAMES];
}

/** The layout with `axis` given `role`: the axis that had it takes this axis's old role
 * (rows and columns always have an axis: when one leaves, a slider or the small multiples
 * take its place). Unchanged when that can't be. */
export function withRole(layout: Layout, axis: number, role: Role): Layout {
  const current = roleOf(layout, axis);
  if (role === current || !rolesFor(layout, axis).includes(role)) {
    return layout;
  }
  const roles = layout.shape.map((_, a) => roleOf(layout, a));
  const single = ['rows', 'cols', 'multiples', 'channels'];
  const holder = single.includes(role) ? roles.indexOf(role) : -1;
  roles[axis] = role;
  if (holder >= 0) {
    roles[holder] = current;
    if (current === 'channels' && !(layout.shape[holder] === 3 || layout.shape[holder] === 4)) {
      roles[holder] = 'slider';
    }
  } else if (current === 'rows' || current === 'cols') {
    const free = roles.findIndex((r, a) => a !== axis && r === 'slider');
    const stand = free >= 0 ? free : roles.findIndex((r, a) => a !== axis && r === 'multiples');
    if (stand < 0) {
      return layout;
    }
    roles[stand] = current;
  }
  const reduce: Record<number, string> = {};
  roles.forEach((r, a) => { if (REDUCTION_NAMES.includes(r)) reduce[a] = r; });
  return {
    ...layout,
    rows: roles.indexOf('rows'),
    cols: roles.indexOf('cols'),
    multiples: roles.indexOf('multiples'),
    channels: roles.indexOf('channels'),
    sliders: roles.map((r, a) => (r === 'slider' ? a : -1)).filter((a) => a >= 0),
    reduce,
  };
}

/** The colors once axes are reduced: a reduction's values aren't the domain's, so there's no
 * domain range; norms and stds can't be negative; masks and indices become amounts. Without
 * reductions, the colors the type chose (`base`'s). */
export function recolor(layout: Layout, base: Layout): Layout {
  const reductions = Object.values(layout.reduce);
  if (!reductions.length) {
    return { ...layout, colors: base.colors, range: base.range };
  }
  const positive = reductions.every((r) => r === 'norm' || r === 'std') || base.colors !== 'diverging';
  return { ...layout, colors: positive ? 'sequential' : 'diverging', range: undefined };
}

/** The layout with the group axes in `split` (axes of the value whose parts' sizes are known)
 * split into their parts and the others whole: the type's own layout when that's what it
 * chose, else the last two axes of the view as the heatmap's, the rest as usual. */
export function splitLayout(shape: number[], typeText: string | null | undefined, dtype: string, groups: Groups, domainSize: number | null | undefined, split: number[]): Layout {
  const chosen = chooseLayout(shape, typeText, dtype, groups, domainSize);
  const wanted = split.filter((axis) => groups[String(axis)]).sort((a, b) => a - b);
  if (wanted.join(',') === chosen.split.map((s) => s.axis).join(',')) {
    return chosen;
  }
  const whole = chooseLayout(shape, typeText, dtype, {}, domainSize);
  if (!wanted.length || whole.kind !== 'heatmap') {
    return whole;
  }
  const view = splitShape(shape, whole.axes, groups, wanted);
  const dims = view.shape.length;
  const base = { ...whole, axes: view.axes, shape: view.shape, split: view.splits, reduce: {}, multiples: -1, channels: -1, sliders: [] as number[] };
  return finishLayout(base, dims - 2, dims - 1, -1, []);
}
