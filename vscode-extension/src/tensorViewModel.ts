// What the Tensor view keeps between stops: its expressions (one tab each, as Watch keeps
// its own), the selected one, the frame they're evaluated in and the value the program
// serves for it. No VS Code here: the debug session and the page are behind `TensorHost`,
// so the behaviour is tested in Node.

/** Where the program serves a value: its id, the server's URL and token. */
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

/** The debugger requests after which the program runs: the view's values are then the last stop's. */
export const RUNNING_REQUESTS = ['continue', 'next', 'stepIn', 'stepOut', 'stepBack', 'reverseContinue', 'goto', 'restartFrame'];

/** What the model needs from the editor: evaluation in a frame, the server, and the page. */
export interface TensorHost {
  /** Evaluate a Python expression in the frame (the top one when undefined); its result's text. */
  evaluate(expression: string, frameId: number | undefined): Promise<string>;
  /** A JSON answer of the server. */
  fetch(opened: Opened, path: string, query?: Record<string, string | number>): Promise<unknown>;
  /** A message to the view's page. */
  post(message: Record<string, unknown>): void;
}

/** The view's expressions and the value of the selected one. */
export class TensorViewModel {
  expressions: string[] = [];
  selected = -1;
  frameId: number | undefined;
  opened: Opened | undefined;
  stale = false;
  private generation = 0;

  constructor(private readonly host: TensorHost) {}

  /** View Tensor: add the expression (or select it if it's there) and show it in `frameId`. */
  async add(expression: string, frameId: number | undefined): Promise<void> {
    const text = expression.trim();
    if (!text) {
      return;
    }
    let index = this.expressions.indexOf(text);
    if (index < 0) {
      this.expressions.push(text);
      index = this.expressions.length - 1;
    }
    this.selected = index;
    this.frameId = frameId;
    this.postTabs();
    await this.refresh();
  }

  /** A tab was chosen. */
  async select(index: number): Promise<void> {
    if (index < 0 || index >= this.expressions.length || index === this.selected) {
      return;
    }
    this.selected = index;
    this.postTabs();
    await this.refresh();
  }

  /** The expression box changed the selected expression. */
  async change(expression: string): Promise<void> {
    const text = expression.trim();
    if (!text || this.selected < 0) {
      return;
    }
    this.expressions[this.selected] = text;
    this.postTabs();
    await this.refresh();
  }

  /** A tab was closed. */
  async remove(index: number): Promise<void> {
    if (index < 0 || index >= this.expressions.length) {
      return;
    }
    this.expressions.splice(index, 1);
    const shown = index === this.selected;
    if (index < this.selected || this.selected >= this.expressions.length) {
      this.selected -= 1;
    }
    this.postTabs();
    if (!shown) {
      return;
    }
    if (this.selected < 0) {
      this.generation += 1;
      this.release();
      this.host.post({ type: 'empty' });
      return;
    }
    await this.refresh();
  }

  /** The program stopped, or another frame was selected: show the expression there. */
  async frameChanged(frameId: number | undefined): Promise<void> {
    this.frameId = frameId;
    this.stale = false;
    if (this.selected >= 0) {
      await this.refresh();
    }
  }

  /** The program goes on: keep the drawing, marked as the last stop's, and let the value go. */
  ran(): void {
    if (this.stale) {
      return;
    }
    this.stale = true;
    this.generation += 1;
    this.host.post({ type: 'stale' });
    this.release();
  }

  /** A tile of the value shown now, for the page. */
  tile(query: Record<string, string | number>): Promise<unknown> {
    const opened = this.opened;
    return opened ? this.host.fetch(opened, '/tile', query) : Promise.reject(new Error('no value is shown'));
  }

  /** Evaluate the selected expression in the frame and show its summary. */
  async refresh(): Promise<void> {
    const generation = ++this.generation;
    const expression = this.expressions[this.selected];
    if (expression === undefined) {
      return;
    }
    try {
      const result = await this.host.evaluate(openExpression(expression), this.frameId);
      const found = parseOpened(result);
      if (!found) {
        throw new Error(result || 'no answer');
      }
      const summary = await this.host.fetch(found, '/summary');
      if (generation !== this.generation) {
        // Another stop, frame or expression came first: this value is already out of date.
        void this.host.fetch(found, '/release').catch(() => undefined);
        return;
      }
      this.release();
      this.opened = found;
      this.stale = false;
      this.host.post({ type: 'show', expression, summary });
    } catch (e) {
      if (generation === this.generation) {
        this.host.post({ type: 'error', expression, message: e instanceof Error ? e.message : String(e) });
      }
    }
  }

  /** The debug session ended: what the view drew stays, as the last stop's. */
  ended(): void {
    this.generation += 1;
    // Where the program outlives the session (a detach), it needn't keep the value.
    this.release();
    if (!this.stale) {
      this.stale = true;
      this.host.post({ type: 'stale' });
    }
  }

  private release(): void {
    const opened = this.opened;
    this.opened = undefined;
    if (opened) {
      void this.host.fetch(opened, '/release').catch(() => undefined);
    }
  }

  private postTabs(): void {
    this.host.post({ type: 'tabs', expressions: [...this.expressions], selected: this.selected });
  }
}
