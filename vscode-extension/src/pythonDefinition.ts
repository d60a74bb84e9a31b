// Go to definition from Python files into `.ss` files.
//
// Pylance (or any Python language server) answers with the generated module, model.py,
// and VS Code shows every provider's answers, with no way to drop another's. So this
// provider adds its own answer, the `.ss` declaration, only when no other provider
// answers; when one does, an editor that then lands on the generated module, where that
// answer said, is replaced in the same tab by the `.ss` file at the same declaration.
// A generated module opened on purpose (explorer, tab) is left alone.
import * as vscode from 'vscode';
import {
  GENERATED_PREFIX, generatedDeclaration, importedNameAt, nameAt, ssCandidates, ssOfGenerated,
} from './pythonNames';

/** How long after a go to definition an editor landing on a generated module counts. */
const LANDING_MS = 5000;

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

export class PythonDefinitions implements vscode.DefinitionProvider, vscode.Disposable {
  private asking = false;
  private landing: { generated: string; target: vscode.Location; at: number } | undefined;
  private readonly listener: vscode.Disposable;

  constructor(private readonly declarationOf: DeclarationOf) {
    this.listener = vscode.window.onDidChangeActiveTextEditor((editor) => void this.landed(editor));
  }

  dispose(): void {
    this.listener.dispose();
  }

  async provideDefinition(
    document: vscode.TextDocument,
    position: vscode.Position,
  ): Promise<vscode.Location | undefined> {
    if (this.asking || document.uri.scheme !== 'file') return undefined;
    const target = await this.declaration(document, position);
    if (!target) return undefined;
    const ss = target.uri.fsPath;
    this.landing = { generated: ssOfGenerated(ss.replace(/\.ss$/, '.py')), target, at: Date.now() };
    if (this.landing.generated === document.uri.fsPath) {
      // Ctrl-click in the generated module itself: the answer is the .ss file.
      return target;
    }
    this.asking = true;
    let others: unknown[] = [];
    try {
      others = (await vscode.commands.executeCommand<unknown[]>(
        'vscode.executeDefinitionProvider', document.uri, position)) ?? [];
    } catch {
      others = [];
    } finally {
      this.asking = false;
    }
    return others.length > 0 ? undefined : target;
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

  /** An editor that lands on the generated module just after a go to definition is
   * replaced by the `.ss` file at the declaration, in the same tab. */
  private async landed(editor: vscode.TextEditor | undefined): Promise<void> {
    const landing = this.landing;
    if (!editor || !landing || editor.document.uri.fsPath !== landing.generated) return;
    this.landing = undefined;
    if (Date.now() - landing.at > LANDING_MS) return;
    const column = editor.viewColumn;
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
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
