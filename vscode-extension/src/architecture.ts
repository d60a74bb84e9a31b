// VS Code's Architecture tab: a webview beside the editor that draws the model at the
// cursor, from the server's `shapescript/architecture`. The code lens, the hover's link,
// the context menu or the command palette opens it; once open, it follows the cursor
// from model to model without taking the focus. With
// `shapescript.architecture.openAutomatically` it also opens by itself the first time
// the cursor is on a model (or a function that takes one first), until it is closed.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  architectureHtml,
  ArchitectureAnswer,
  ArchitectureRange,
  cursorAction,
  Detail,
  makeNonce,
  modelLines,
  nodeRange,
} from './architecture_page';

export const SHOW_COMMAND = 'shapescript.architecture.show';
export const TOGGLE_COMMAND = 'shapescript.architecture.toggleDetail';
const SECTION = 'shapescript.architecture';
const FOLLOW_DELAY_MS = 150;

function detailSetting(): Detail {
  const value = vscode.workspace.getConfiguration(SECTION).get<string>('detail', 'layers');
  return value === 'operations' ? 'operations' : 'layers';
}

/** Initialization options: the tab shows the drawing, so hovers give the summary and a link. */
export function architectureOptions(): Record<string, unknown> {
  return { architecturePanel: true, architectureToggle: true, architectureDetail: detailSetting() };
}

function toRange(range: ArchitectureRange): vscode.Range {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

class ModelLenses implements vscode.CodeLensProvider {
  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    return modelLines(document.getText()).map(
      (found) =>
        new vscode.CodeLens(new vscode.Range(found.line, 0, found.line, 0), {
          title: 'Show architecture',
          command: SHOW_COMMAND,
          arguments: [document.uri.toString(), found.line, found.character],
        }),
    );
  }
}

export class ArchitectureView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private answer: ArchitectureAnswer | undefined;
  private where: { uri: string; position: vscode.Position } | undefined;
  private closedByUser = false;
  private ready = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly client: () => LanguageClient | undefined) {}

  register(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand(SHOW_COMMAND, (uri?: unknown, line?: number, character?: number) =>
        this.showCommand(uri, line, character),
      ),
      vscode.commands.registerCommand(TOGGLE_COMMAND, async (detail?: Detail) => {
        await this.toggle(detail);
        // From a hover's link: show the hover again, at the new level.
        if (detail !== undefined && vscode.window.activeTextEditor) {
          await vscode.commands.executeCommand('editor.action.showHover');
        }
      }),
      vscode.languages.registerCodeLensProvider({ language: 'shapescript' }, new ModelLenses()),
      vscode.window.onDidChangeTextEditorSelection((event) => this.cursorMoved(event)),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(`${SECTION}.detail`)) {
          void this.sendDetail();
        }
      }),
      this,
    ];
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.panel?.dispose();
  }

  /** The command: from a code lens or link (uri, line, character), or the cursor. */
  private async showCommand(uri?: unknown, line?: number, character?: number): Promise<void> {
    this.closedByUser = false;
    if (typeof uri === 'string' && typeof line === 'number' && typeof character === 'number') {
      await this.show(uri, new vscode.Position(line, character), true);
      return;
    }
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== 'shapescript') {
      void vscode.window.showInformationMessage('ShapeScript: put the cursor on a model to see its architecture.');
      return;
    }
    await this.show(editor.document.uri.toString(), editor.selection.active, true);
  }

  private async toggle(detail?: Detail): Promise<void> {
    const next = detail ?? (detailSetting() === 'layers' ? 'operations' : 'layers');
    await vscode.workspace.getConfiguration(SECTION).update('detail', next, vscode.ConfigurationTarget.Global);
    await this.sendDetail();
  }

  private async sendDetail(): Promise<void> {
    const client = this.client();
    if (client?.isRunning()) {
      await client.sendNotification('shapescript/setArchitectureDetail', { detail: detailSetting() });
    }
    if (this.where && this.panel) {
      await this.show(this.where.uri, this.where.position, false);
    }
  }

  private cursorMoved(event: vscode.TextEditorSelectionChangeEvent): void {
    const document = event.textEditor.document;
    if (document.languageId !== 'shapescript' || document.uri.scheme !== 'file') {
      return;
    }
    const settings = vscode.workspace.getConfiguration(SECTION);
    const action = cursorAction({
      followCursor: settings.get<boolean>('followCursor', true),
      openAutomatically: settings.get<boolean>('openAutomatically', false),
      open: this.panel !== undefined,
      closedByUser: this.closedByUser,
    });
    if (action === 'none') {
      return;
    }
    const position = event.selections[0]?.active;
    if (!position) {
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.follow(document.uri.toString(), position), FOLLOW_DELAY_MS);
  }

  private async follow(uri: string, position: vscode.Position): Promise<void> {
    const probe = await this.request(uri, position, true);
    if (probe?.model) {
      await this.show(uri, position, false);
    }
  }

  private async request(
    uri: string,
    position: vscode.Position,
    probe = false,
  ): Promise<ArchitectureAnswer | null | undefined> {
    const client = this.client();
    if (!client?.isRunning()) {
      return undefined;
    }
    try {
      return await client.sendRequest<ArchitectureAnswer | null>('shapescript/architecture', {
        textDocument: { uri },
        position: { line: position.line, character: position.character },
        detail: detailSetting(),
        ...(probe ? { probe: true } : {}),
      });
    } catch {
      return undefined;
    }
  }

  private async show(uri: string, position: vscode.Position, explicit: boolean): Promise<void> {
    const answer = await this.request(uri, position);
    if (!answer) {
      if (explicit) {
        void vscode.window.showInformationMessage('ShapeScript: no model at the cursor.');
      }
      return;
    }
    this.answer = answer;
    this.where = { uri, position };
    const panel = this.ensurePanel(answer.title, explicit);
    panel.title = answer.title;
    if (explicit) {
      panel.reveal(panel.viewColumn ?? vscode.ViewColumn.Beside, true);
    }
    this.draw();
  }

  private ensurePanel(title: string, explicit: boolean): vscode.WebviewPanel {
    if (this.panel) {
      return this.panel;
    }
    const panel = vscode.window.createWebviewPanel(
      'shapescript.architecture',
      title,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: [], retainContextWhenHidden: true },
    );
    this.ready = false;
    panel.webview.html = architectureHtml(makeNonce());
    panel.webview.onDidReceiveMessage((message) => void this.received(message));
    panel.onDidDispose(() => {
      this.panel = undefined;
      this.closedByUser = true;
    });
    this.panel = panel;
    return panel;
  }

  private draw(): void {
    if (this.panel && this.ready && this.answer) {
      void this.panel.webview.postMessage({ type: 'draw', answer: this.answer });
    }
  }

  private async received(message: { type?: string; id?: string; label?: string; detail?: Detail }): Promise<void> {
    if (message.type === 'ready') {
      this.ready = true;
      this.draw();
    } else if (message.type === 'select' && this.answer && message.id) {
      const found = nodeRange(this.answer, message.id);
      if (found) {
        await this.reveal(found.uri, found.range);
      }
    } else if (message.type === 'link' && this.answer) {
      const link = this.answer.links.find((item) => item.label === message.label);
      if (link) {
        await this.reveal(link.uri, link.range);
      }
    } else if (message.type === 'detail' && message.detail) {
      await this.toggle(message.detail);
    }
  }

  /** Selects the code in the editor that shows its file (opening it beside the tab if none does). */
  private async reveal(uri: string, range: ArchitectureRange): Promise<void> {
    const target = vscode.Uri.parse(uri);
    const document = await vscode.workspace.openTextDocument(target);
    const visible = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === target.toString());
    const selection = toRange(range);
    const editor = await vscode.window.showTextDocument(document, {
      viewColumn: visible?.viewColumn ?? vscode.ViewColumn.One,
      selection,
      preserveFocus: false,
    });
    editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  /** For the end-to-end test: what the tab shows now. */
  state(): { open: boolean; title?: string; model?: string; svg?: string; nodes?: ArchitectureAnswer['nodes'] } {
    return {
      open: this.panel !== undefined,
      title: this.panel?.title,
      model: this.answer?.model,
      svg: this.answer?.svg,
      nodes: this.answer?.nodes,
    };
  }

  /** For the end-to-end test: what clicking box `id` in the tab does. */
  async select(id: string): Promise<void> {
    await this.received({ type: 'select', id });
  }
}
