// A stand-in for Pylance in the VS Code end-to-end test (test_vscode_python.py): go to
// definition in a Python file answers, as a Python language server does, with the
// declaration in the module the name comes from, `from M import name` read as M.py next
// to the file, or in the file itself (so in a generated module, its own declaration).
// The command "Fake Python: Stop Answering Go to Definition" takes its answers away, as if
// no Python language server were installed, for the test's second half in the same VS Code.
'use strict';
const path = require('path');
const vscode = require('vscode');

function declarationIn(text, name) {
  const lines = text.split('\n');
  const pattern = new RegExp(`^(?:def |class )?(${name})\\b\\s*[(:]`);
  for (let line = 0; line < lines.length; line++) {
    const match = pattern.exec(lines[line]);
    if (match) return new vscode.Position(line, match[0].indexOf(name));
  }
  return undefined;
}

async function provideDefinition(document, position) {
  const range = document.getWordRangeAtPosition(position);
  if (!range) return undefined;
  const name = document.getText(range);
  const text = document.getText();
  const imported = new RegExp(`^from\\s+([\\w.]+)\\s+import\\s+[^\\n]*\\b${name}\\b`, 'm').exec(text);
  let uri = document.uri;
  let source = text;
  if (imported) {
    const file = path.join(path.dirname(document.uri.fsPath), ...imported[1].split('.')) + '.py';
    uri = vscode.Uri.file(file);
    try {
      source = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    } catch {
      return undefined;
    }
  }
  const at = declarationIn(source, name);
  return at ? new vscode.Location(uri, new vscode.Range(at, at.translate(0, name.length))) : undefined;
}

function activate(context) {
  const provider = vscode.languages.registerDefinitionProvider(
    { language: 'python', scheme: 'file' }, { provideDefinition });
  context.subscriptions.push(
    provider, vscode.commands.registerCommand('fakePythonServer.stop', () => provider.dispose()));
}

module.exports = { activate };
