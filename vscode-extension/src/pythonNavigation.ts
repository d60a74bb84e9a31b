// When go to definition from Python lands in a `.ss` file: the decisions, no `vscode`.
//
// A Python language server (Pylance) answers a go to definition with the generated module,
// model.py, and VS Code shows every provider's answers. So the extension answers only when
// no other provider does; otherwise it waits for an editor to land where that answer said,
// and puts the `.ss` file there instead. These functions decide, from what the extension
// saw, what to answer and whether an editor that became active is such a landing.

/** How long after the other answers to a definition request come in an editor landing on
 * their generated module counts. */
export const LANDING_MS = 5000;
/** How long after a click (or F12) at a place a definition request there counts as its own. */
export const CLICK_MS = 1500;

/** A place in a file: its path and a 0-based line and character. */
export interface Place {
  path: string;
  line: number;
  character: number;
}

/** A definition request whose answer, the generated module, an editor may land on. */
export interface Landing {
  /** The generated module (model.py) the other provider's answer is in. */
  generated: string;
  /** The file the request was made in. */
  origin: string;
  /** When the other providers' answers came in (ms); the landing follows soon after. */
  at: number;
  /** Whether the generated module was open in a tab when the request was made. */
  generatedWasOpen: boolean;
}

/** What to do with a definition request in a Python file, once the other answers are in. */
export type Answer =
  /** Give the `.ss` declaration as this extension's answer. */
  | 'own'
  /** Give nothing, and replace an editor that lands on the generated module. */
  | 'await-landing'
  /** Give nothing. */
  | 'none';

/**
 * Whether a definition request opens the `.ss` declaration at once, without waiting for
 * the other answers: in the generated module itself (`inGenerated`), a go to definition the
 * person asked for (`acted`: F12, or Ctrl-click at the cursor). There the other answer stays
 * in the generated module, often on the very declaration, so no editor would land.
 */
export function opensAtOnce(inGenerated: boolean, acted: boolean): boolean {
  return inGenerated && acted;
}

/**
 * The answer to a definition request for a name that stands for a `.ss` declaration, when
 * it didn't open at once. `inGenerated`: the request is in the generated module itself;
 * `othersAnswered`: another provider answers.
 */
export function answerFor(inGenerated: boolean, othersAnswered: boolean): Answer {
  if (!othersAnswered) return 'own';
  // In the generated module: a Ctrl-hover's underline or a peek keeps the other answer.
  return inGenerated ? 'none' : 'await-landing';
}

/**
 * Whether the request at `at` follows, at that very place, what the person did there: a
 * mouse click (the request is then a Ctrl-click's, not its Ctrl-hover's) or F12 through the
 * extension's command.
 */
export function actedAt(act: (Place & { at: number }) | undefined, at: Place, now: number): boolean {
  return act !== undefined && act.path === at.path && act.line === at.line
    && act.character === at.character && now - act.at <= CLICK_MS;
}

/**
 * The character at which to ask all providers, this one included, about the word
 * [start, end) that holds `character`: another character of the same word when it has
 * two, so that the request this provider makes, which VS Code passes back to it, is told
 * apart from a request of the person's at the same time (a Ctrl-click's while its
 * Ctrl-hover's is under way). Every provider answers the same anywhere in a word.
 */
export function innerCharacter(start: number, end: number, character: number): number {
  if (end - start < 2) return character;
  return character === start ? start + 1 : start;
}

/** What to do when an editor becomes active. */
export interface LandingStep {
  /** Show the `.ss` declaration in the editor's place. */
  replace: boolean;
  /** Go back first, to the place the request was made, so that the navigation history
   * forgets the generated module: opening the `.ss` file then drops the entries after it. */
  stepBack: boolean;
  /** Close the generated module's editor: it was opened by the landing, not on purpose. */
  close: boolean;
}

const NOTHING: LandingStep = { replace: false, stepBack: false, close: false };

/**
 * Whether the editor that became active, on `path`, is a landing of `landing`, and what to
 * do; `previous` is the file of the editor active before it.
 */
export function landingStep(
  landing: Landing | undefined,
  path: string | undefined,
  previous: string | undefined,
  now: number,
): LandingStep {
  if (!landing || path !== landing.generated || now - landing.at > LANDING_MS) return NOTHING;
  return { replace: true, stepBack: previous === landing.origin, close: !landing.generatedWasOpen };
}
