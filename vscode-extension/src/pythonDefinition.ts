// Go to definition from Python files into `.ss` files.
//
// Pylance (or any Python language server) answers with the generated module, model.py,
// and VS Code shows every provider's answers, with no way to drop another's. So this
// provider adds its own answer, the `.ss` declaration, only when no other provider
// answers; when one does, an editor that then lands on the generated module, where that
// answer said, is replaced in the same tab by the `.ss` file at the same declaration, and
// the navigation history forgets the generated module. In the generated module itself,
// where the other answer doesn't leave the file, F12 and Ctrl-click open the `.ss` file.
// A generated module opened on purpose (explorer, tab) is left alone. The decisions are
// in pythonNavigation.ts.
import * as vscode from 'vscode';
import {
  GENERATED_PREFIX, generatedDeclaration, importedNameAt, nameAt, ssCandidates, ssOfGenerated,
} from './pythonNames';
import {
  Landing, Place, actedAt, answerFor, innerCharacter, landingStep, opensAtOnce,
} from './pythonNavigation';

/** The context key that is true while the active editor shows a generated module. */
export const IN_GENERATED_MODULE = 'shapescript.inGeneratedModule';
/** F12 in a generated module (package.json binds it): go to definition, asked for. */
export const REVEAL_DEFINITION = 'shapescript.python.revealDefinition';

interface DeclarationAnswer {
  uri: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
}

/** Sends `shapescript/declarationOf` with `{path, name}`; undefined without a server. */
export type DeclarationOf = (path: string, name: string) => Promise<DeclarationAnswer | null | undefined>;

async function exists(file: string): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(vscode.Uri.file(file));
    return true;
  } catch {
    return false;
  }
}

function isOpenInTab(file: string): boolean {
  return vscode.window.tabGroups.all.some((group) => group.tabs.some((tab) =>
    tab.input instanceof vscode.TabInputText && tab.input.uri.fsPath === file));
}

function placeOf(document: vscode.TextDocument, position: vscode.Position): Place {
  return { path: document.uri.fsPath, line: position.line, character: position.character };
}

function placeKey(place: Place): string {
  return `${place.path}#${place.line}:${place.character}`;
}

export class PythonDefinitions implements vscode.DefinitionProvider, vscode.Disposable {
  /** The places of the requests this provider is making of all providers. */
  private readonly inner = new Set<string>();
  private landing: (Landing & { target: vscode.Location }) | undefined;
  private active: string | undefined = vscode.window.activeTextEditor?.document.uri.fsPath;
  private click: (Place & { at: number }) | undefined;
  private revealAsked: (Place & { at: number }) | undefined;
  private readonly listeners: vscode.Disposable[];

  constructor(private readonly declarationOf: DeclarationOf, private readonly log: (message: string) => void) {
    this.listeners = [
      vscode.window.onDidChangeActiveTextEditor((editor) => void this.activated(editor)),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.kind !== vscode.TextEditorSelectionChangeKind.Mouse || e.selections.length !== 1) return;
        this.click = { ...placeOf(e.textEditor.document, e.selections[0].active), at: Date.now() };
      }),
      vscode.commands.registerTextEditorCommand(REVEAL_DEFINITION, (editor) => {
        this.revealAsked = { ...placeOf(editor.document, editor.selection.active), at: Date.now() };
        return vscode.commands.executeCommand('editor.action.revealDefinition');
      }),
    ];
    void this.markGenerated(vscode.window.activeTextEditor);
  }

  dispose(): void {
    for (const listener of this.listeners) listener.dispose();
  }

  async provideDefinition(
    document: vscode.TextDocument,
    position: vscode.Position,
  ): Promise<vscode.Location | undefined> {
    if (document.uri.scheme !== 'file') return undefined;
    const now = Date.now();
    const here = placeOf(document, position);
    const acted = actedAt(this.click, here, now) || actedAt(this.revealAsked, here, now);
    if (acted) {
      this.click = undefined;
      this.revealAsked = undefined;
    }
    const inGenerated = document.lineCount > 0 && document.lineAt(0).text.startsWith(GENERATED_PREFIX);
    const atOnce = opensAtOnce(inGenerated, acted);
    // The request below, of all providers, comes back to this one: it answers nothing.
    if (this.inner.has(placeKey(here)) && !atOnce) return undefined;
    const target = await this.declaration(document, position);
    if (!target) return undefined;
    const generated = target.uri.fsPath.replace(/\.ss$/, '.py');
    if (atOnce) {
      this.log(`go to definition in ${generated}: showing ${target.uri.fsPath}`);
      // Opening the .ss file changes the editor, which cancels VS Code's own request.
      await vscode.window.showTextDocument(target.uri, { selection: target.range });
      return undefined;
    }
    const word = document.getWordRangeAtPosition(position);
    const asked = word
      ? position.with({ character: innerCharacter(word.start.character, word.end.character, position.character) })
      : position;
    const key = placeKey(placeOf(document, asked));
    this.inner.add(key);
    let others: unknown[] = [];
    try {
      others = (await vscode.commands.executeCommand<unknown[]>(
        'vscode.executeDefinitionProvider', document.uri, asked)) ?? [];
    } catch {
      others = [];
    } finally {
      this.inner.delete(key);
    }
    switch (answerFor(inGenerated, others.length > 0)) {
      case 'own':
        return target;
      case 'await-landing':
        // Timed from now, when the other answers are in: asking our server and the others
        // can take seconds on a busy machine, and VS Code only opens the answer after that.
        this.landing = {
          generated, origin: document.uri.fsPath, at: Date.now(), generatedWasOpen: isOpenInTab(generated), target,
        };
        return undefined;
      case 'none':
        return undefined;
    }
  }

  /** The `.ss` declaration the name at the position stands for. */
  private async declaration(document: vscode.TextDocument, position: vscode.Position) {
    const found = importedNameAt(document.getText(), document.offsetAt(position));
    if (!found) return undefined;
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    const candidates = found.module === ''
      ? [ssOfGenerated(document.uri.fsPath)]
      : ssCandidates(found.module, document.uri.fsPath, folders);
    for (const ss of candidates) {
      if (!(await exists(ss))) continue;
      const answer = await this.declarationOf(ss, found.name);
      if (!answer) return undefined;
      const range = new vscode.Range(
        answer.range.start.line, answer.range.start.character,
        answer.range.end.line, answer.range.end.character);
      return new vscode.Location(vscode.Uri.parse(answer.uri), range);
    }
    return undefined;
  }

  private async activated(editor: vscode.TextEditor | undefined): Promise<void> {
    const previous = this.active;
    this.active = editor?.document.uri.fsPath;
    void this.markGenerated(editor);
    await this.landed(editor, previous);
  }

  /** Sets the context key that binds F12 to {@link REVEAL_DEFINITION} in generated modules. */
  private async markGenerated(editor: vscode.TextEditor | undefined): Promise<void> {
    const generated = editor?.document.languageId === 'python'
      && editor.document.lineAt(0).text.startsWith(GENERATED_PREFIX);
    await vscode.commands.executeCommand('setContext', IN_GENERATED_MODULE, generated);
  }

  /** An editor that lands on the generated module just after a go to definition is
   * replaced by the `.ss` file at the declaration, in the same tab. */
  private async landed(editor: vscode.TextEditor | undefined, previous: string | undefined): Promise<void> {
    const landing = this.landing;
    const step = landingStep(landing, editor?.document.uri.fsPath, previous, Date.now());
    if (!editor || !landing || !step.replace) return;
    this.landing = undefined;
    this.log(`go to definition landed on ${landing.generated}: showing ${landing.target.uri.fsPath}`);
    const column = editor.viewColumn;
    const tab = vscode.window.tabGroups.all
      .find((group) => group.viewColumn === column)?.tabs
      .find((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === landing.generated);
    if (step.stepBack) {
      // Back to where the go to definition was asked; opening the .ss file from there
      // drops the generated module from the history, so Go Back and Go Forward skip it.
      await vscode.commands.executeCommand('workbench.action.navigateBack');
    }
    if (step.close && tab) await vscode.window.tabGroups.close(tab, true);
    await vscode.window.showTextDocument(landing.target.uri, {
      selection: landing.target.range,
      viewColumn: column,
    });
  }
}

async function generatedText(file: string): Promise<string | undefined> {
  try {
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(file)));
    return text.startsWith(GENERATED_PREFIX) ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The references of a `.ss` declaration with the uses a Python language server finds of
 * the generated module's declaration added, generated modules left out (the server's own
 * answer already has the uses it reads from the workspace's Python files' imports).
 */
export async function withPythonReferences(
  found: vscode.Location[] | null | undefined,
  document: vscode.TextDocument,
  position: vscode.Position,
): Promise<vscode.Location[] | null | undefined> {
  if (document.uri.scheme !== 'file' || !document.uri.fsPath.endsWith('.ss')) return found;
  const name = nameAt(document.getText(), document.offsetAt(position));
  const module = document.uri.fsPath.replace(/\.ss$/, '.py');
  const text = name ? await generatedText(module) : undefined;
  const at = text && name ? generatedDeclaration(text, name) : undefined;
  if (!at) return found;
  let python: vscode.Location[] = [];
  try {
    python = (await vscode.commands.executeCommand<vscode.Location[]>(
      'vscode.executeReferenceProvider', vscode.Uri.file(module), new vscode.Position(at.line, at.character))) ?? [];
  } catch {
    return found;
  }
  const result = [...(found ?? [])];
  const seen = new Set(result.map((l) => `${l.uri.toString()}#${l.range.start.line}:${l.range.start.character}`));
  for (const location of python) {
    const key = `${location.uri.toString()}#${location.range.start.line}:${location.range.start.character}`;
    if (seen.has(key) || location.uri.scheme !== 'file') continue;
    if (await generatedText(location.uri.fsPath)) continue;  // a generated module
    seen.add(key);
    result.push(location);
  }
  return result;
}
