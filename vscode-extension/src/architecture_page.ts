// The Architecture tab's page and the pure logic around it, without `vscode`, so that it
// is unit-tested: the HTML with its Content-Security-Policy (nothing but the drawing and
// the page's own script), zoom steps and fit, what a cursor move does to the tab, where a
// model name is on a line, and the code lens lines.

/** The answer of `shapescript/architecture`, as far as the tab reads it. */
export interface ArchitectureRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

export interface ArchitectureAnswer {
  model: string;
  title: string;
  summary: string;
  detail: 'layers' | 'operations';
  svg: string;
  width: number;
  height: number;
  text: string;
  declaration: { uri: string; range: ArchitectureRange };
  links: { label: string; place: string; kind: 'source' | 'followed'; uri: string; range: ArchitectureRange }[];
  nodes: { id: string; uri: string; range: ArchitectureRange }[];
}

export type Detail = 'layers' | 'operations';

export const MIN_ZOOM = 0.2;
export const MAX_ZOOM = 4;
/** Fit may go below MIN_ZOOM, so that a tall drawing still fits; not below this. */
export const MIN_FIT_ZOOM = 0.02;
/** The room the drawing's padding takes around it, in pixels, across and down. */
export const FIT_PADDING = 24;

/** The zoom after one step in (`+`) or out (`-`), kept between MIN_ZOOM and MAX_ZOOM. */
export function zoomStep(zoom: number, direction: 1 | -1): number {
  const next = direction > 0 ? zoom * 1.2 : zoom / 1.2;
  return Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, Math.round(next * 1000) / 1000));
}

/** The zoom that fits a drawing of `width` × `height` into a view of `availableWidth` ×
 * `availableHeight` pixels, its padding included: the smaller of the two fits. */
export function fitZoom(width: number, height: number, availableWidth: number, availableHeight: number): number {
  if (width <= 0 || height <= 0 || availableWidth <= 0 || availableHeight <= 0) {
    return 1;
  }
  const across = (availableWidth - FIT_PADDING) / width;
  const down = (availableHeight - FIT_PADDING) / height;
  return Math.min(MAX_ZOOM, Math.max(MIN_FIT_ZOOM, Math.min(across, down)));
}

/** What the tab reads to decide what a cursor move does. */
export interface CursorState {
  /** `shapescript.architecture.followCursor`. */
  followCursor: boolean;
  /** `shapescript.architecture.openAutomatically`. */
  openAutomatically: boolean;
  /** Whether the tab is open now. */
  open: boolean;
  /** Whether the user closed it since it was last opened by a command. */
  closedByUser: boolean;
}

/** A cursor move on a model: nothing, redraw the open tab for it (`follow`), or open the
 * tab beside the editor (`open`), which only `openAutomatically` allows. */
export function cursorAction(state: CursorState): 'none' | 'follow' | 'open' {
  if (!state.followCursor) {
    return 'none';
  }
  if (state.open) {
    return 'follow';
  }
  return state.openAutomatically && !state.closedByUser ? 'open' : 'none';
}

/** The lines that declare a model (`model Gpt:`), with where the name starts, for the code lens. */
export function modelLines(text: string): { line: number; character: number; name: string }[] {
  const found: { line: number; character: number; name: string }[] = [];
  text.split(/\r\n|\r|\n/).forEach((line, index) => {
    const match = /^model\s+([A-Za-z_]\w*)\s*:/.exec(line);
    if (match) {
      found.push({ line: index, character: line.indexOf(match[1], 5), name: match[1] });
    }
  });
  return found;
}

/** The code of the box a click in the drawing chose, or undefined. */
export function nodeRange(answer: ArchitectureAnswer, id: string): { uri: string; range: ArchitectureRange } | undefined {
  const node = answer.nodes.find((n) => n.id === id);
  return node ? { uri: node.uri, range: node.range } : undefined;
}

/** The other level, and the words its switch shows. */
export function otherDetail(detail: Detail): { detail: Detail; label: string } {
  return detail === 'layers'
    ? { detail: 'operations', label: 'Every operation' }
    : { detail: 'layers', label: 'Layers' };
}

/** A random nonce for the page's one script and style. */
export function makeNonce(random: () => number = Math.random): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let nonce = '';
  for (let i = 0; i < 32; i++) {
    nonce += chars.charAt(Math.floor(random() * chars.length));
  }
  return nonce;
}

/** The policy: no network, no other scripts or styles, images only as `data:` (none are used). */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    'img-src data:',
  ].join('; ');
}

/** The page: a toolbar (zoom, level switch, function links) and the drawing, which the
 * script receives in a `draw` message and places with zoom and drag. */
export function architectureHtml(nonce: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(nonce)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<style nonce="${nonce}">
  html, body { height: 100%; margin: 0; padding: 0; overflow: hidden; }
  body { color: var(--vscode-editor-foreground); background: var(--vscode-editor-background);
         font-family: var(--vscode-font-family); font-size: var(--vscode-font-size);
         display: flex; flex-direction: column; }
  #bar { display: flex; gap: 6px; align-items: center; padding: 6px 8px; flex-wrap: wrap;
         border-bottom: 1px solid var(--vscode-panel-border, transparent); }
  #bar button { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground);
                border: none; padding: 2px 8px; cursor: pointer; border-radius: 2px; }
  #bar button[aria-pressed="true"] { background: var(--vscode-button-background); color: var(--vscode-button-foreground); }
  #links a { margin-right: 8px; color: var(--vscode-textLink-foreground); cursor: pointer; }
  #summary { opacity: 0.8; width: 100%; }
  #bar { flex: none; }
  #view { flex: 1; min-height: 0; overflow: auto; cursor: grab; }
  #view.dragging { cursor: grabbing; }
  #drawing { padding: ${FIT_PADDING / 2}px; width: max-content; }
  #drawing svg { display: block; }
  #drawing g[data-node] { cursor: pointer; }
  #drawing g[data-node]:hover rect { stroke-width: 2.4; }
  #drawing g[data-node].selected rect { stroke-width: 2.6; }
</style>
</head>
<body>
<div id="bar">
  <button id="zoom-out" title="Zoom out (-)">−</button>
  <button id="zoom-in" title="Zoom in (+)">+</button>
  <button id="zoom-fit" title="Fit the drawing into the view (0)">Fit</button>
  <button id="layers" aria-pressed="true">Layers</button>
  <button id="operations" aria-pressed="false">Every operation</button>
  <span id="links"></span>
  <div id="summary"></div>
</div>
<div id="view"><div id="drawing"></div></div>
<script nonce="${nonce}">
(function () {
  const vscode = acquireVsCodeApi();
  const view = document.getElementById('view');
  const drawing = document.getElementById('drawing');
  const MIN = ${MIN_ZOOM}, MAX = ${MAX_ZOOM}, MIN_FIT = ${MIN_FIT_ZOOM}, PADDING = ${FIT_PADDING};
  let zoom = 1, width = 1, height = 1, fitted = true, answer = null;
  // The drawing is drawn at its zoomed size, so the view scrolls over exactly that.
  function apply() {
    const svg = drawing.querySelector('svg');
    if (!svg) return;
    svg.setAttribute('width', String(width * zoom));
    svg.setAttribute('height', String(height * zoom));
    vscode.setState({ zoom: zoom, fitted: fitted });
  }
  // The same as fitZoom in architecture_page.ts: both the width and the height fit.
  function fit() {
    fitted = true;
    const across = (view.clientWidth - PADDING) / width, down = (view.clientHeight - PADDING) / height;
    zoom = view.clientWidth > 0 && view.clientHeight > 0
      ? Math.min(MAX, Math.max(MIN_FIT, Math.min(across, down))) : 1;
    apply();
  }
  function step(direction) {
    fitted = false;
    zoom = Math.min(MAX, Math.max(Math.min(MIN, zoom), direction > 0 ? zoom * 1.2 : zoom / 1.2));
    apply();
  }
  document.getElementById('zoom-in').onclick = () => step(1);
  document.getElementById('zoom-out').onclick = () => step(-1);
  document.getElementById('zoom-fit').onclick = fit;
  document.getElementById('layers').onclick = () => vscode.postMessage({ type: 'detail', detail: 'layers' });
  document.getElementById('operations').onclick = () => vscode.postMessage({ type: 'detail', detail: 'operations' });
  window.addEventListener('resize', () => { if (fitted) fit(); });
  window.addEventListener('keydown', (event) => {
    if (event.key === '+' || event.key === '=') step(1);
    else if (event.key === '-') step(-1);
    else if (event.key === '0') fit();
  });
  view.addEventListener('wheel', (event) => {
    if (event.ctrlKey || event.metaKey) { event.preventDefault(); step(event.deltaY < 0 ? 1 : -1); }
  }, { passive: false });
  let drag = null, moved = false;
  view.addEventListener('pointerdown', (event) => {
    drag = { x: event.clientX, y: event.clientY, left: view.scrollLeft, top: view.scrollTop }; moved = false;
  });
  window.addEventListener('pointermove', (event) => {
    if (!drag) return;
    const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) { moved = true; view.classList.add('dragging'); }
    view.scrollLeft = drag.left - dx; view.scrollTop = drag.top - dy;
  });
  window.addEventListener('pointerup', () => { drag = null; view.classList.remove('dragging'); });
  drawing.addEventListener('click', (event) => {
    if (moved) return;
    const box = event.target.closest && event.target.closest('g[data-node]');
    if (box) {
      drawing.querySelectorAll('g.selected').forEach((g) => g.classList.remove('selected'));
      box.classList.add('selected');
      vscode.postMessage({ type: 'select', id: box.getAttribute('data-node') });
      return;
    }
    const link = event.target.closest && event.target.closest('[data-link]');
    if (link) vscode.postMessage({ type: 'link', label: link.getAttribute('data-link') });
  });
  window.addEventListener('message', (event) => {
    const message = event.data;
    if (!message || message.type !== 'draw') return;
    answer = message.answer;
    width = answer.width || 1;
    height = answer.height || 1;
    drawing.innerHTML = answer.svg;
    document.getElementById('summary').textContent = answer.summary;
    document.getElementById('layers').setAttribute('aria-pressed', String(answer.detail === 'layers'));
    document.getElementById('operations').setAttribute('aria-pressed', String(answer.detail === 'operations'));
    const links = document.getElementById('links');
    links.textContent = '';
    answer.links.forEach((item) => {
      const a = document.createElement('a');
      a.textContent = item.label + ' (' + item.place + ')';
      a.title = item.kind === 'source' ? 'read from this function' : 'followed into this function';
      a.onclick = () => vscode.postMessage({ type: 'link', label: item.label });
      links.appendChild(a);
    });
    if (fitted) fit(); else apply();
  });
  const state = vscode.getState();
  if (state) { zoom = state.zoom || 1; fitted = state.fitted !== false; }
  vscode.postMessage({ type: 'ready' });
})();
</script>
</body>
</html>`;
}
