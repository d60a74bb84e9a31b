// What package.json, language-configuration.json and .vscodeignore promise VS Code.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(__dirname, '..', '..');
const readJson = (rel: string) => JSON.parse(fs.readFileSync(path.join(ROOT, rel), 'utf8'));
const pkg = readJson('package.json');

describe('package.json', () => {
  it('identifies the extension', () => {
    assert.equal(pkg.name, 'shapescript');
    assert.equal(pkg.publisher, 'shapescript');
    assert.equal(pkg.version, '0.1.0');
    assert.equal(pkg.engines.vscode, '^1.90.0');
    assert.equal(pkg.main, './out/extension.js');
    assert.deepEqual(pkg.activationEvents, [
      'onLanguage:shapescript',
      'onLanguage:python',
      'onDebugResolve:shapescript',
      'onNotebook:jupyter-notebook',
    ]);
  });

  it('ships vscode-languageclient at run time and the tools only for development', () => {
    assert.ok(pkg.dependencies['vscode-languageclient'], 'vscode-languageclient is a dependency');
    assert.deepEqual(Object.keys(pkg.dependencies), ['vscode-languageclient']);
    for (const dev of ['typescript', '@types/vscode', '@vscode/vsce']) {
      assert.ok(pkg.devDependencies[dev], `${dev} is a devDependency`);
    }
    // @types/vscode must not be newer than the engine, or vsce refuses to package
    assert.equal(pkg.devDependencies['@types/vscode'].replace(/^[~^]/, ''), '1.90.0');
  });

  it('declares the shapescript language for .ss files', () => {
    const [lang] = pkg.contributes.languages;
    assert.equal(lang.id, 'shapescript');
    assert.deepEqual(lang.extensions, ['.ss']);
    assert.equal(lang.aliases[0], 'ShapeScript');
    assert.ok(fs.existsSync(path.join(ROOT, lang.configuration)), lang.configuration);
  });

  it('declares the grammar, whose file has the same scope name', () => {
    const [grammar] = pkg.contributes.grammars;
    assert.equal(grammar.language, 'shapescript');
    assert.equal(grammar.scopeName, 'source.shapescript');
    assert.equal(grammar.path, './syntaxes/shapescript.tmLanguage.json');
    assert.equal(readJson(grammar.path).scopeName, 'source.shapescript');
  });

  it('declares the settings', () => {
    const props = pkg.contributes.configuration.properties;
    assert.equal(props['shapescript.python'].type, 'string');
    assert.equal(props['shapescript.python'].default, '');
    assert.equal(props['shapescript.server.args'].type, 'array');
    assert.equal(props['shapescript.server.args'].items.type, 'string');
    assert.deepEqual(props['shapescript.server.args'].default, []);
    assert.equal(props['shapescript.hover.pictures'].type, 'boolean');
    assert.equal(props['shapescript.hover.pictures'].default, true);
    assert.equal(props['shapescript.inlayHints.bindings'].type, 'boolean');
    assert.equal(props['shapescript.inlayHints.bindings'].default, true);
    assert.deepEqual(props['shapescript.trace.server'].enum, ['off', 'messages', 'verbose']);
    assert.equal(props['shapescript.trace.server'].default, 'off');
  });

  it('keeps the interpreter and file-writing settings out of untrusted workspaces', () => {
    const untrusted = pkg.capabilities.untrustedWorkspaces;
    assert.equal(untrusted.supported, 'limited');
    assert.deepEqual([...untrusted.restrictedConfigurations].sort(),
      ['shapescript.python', 'shapescript.pythonModules', 'shapescript.server.args']);
  });

  it('contributes the restart command, and the extension registers it', () => {
    const commands = pkg.contributes.commands.map((c: { command: string }) => c.command);
    assert.ok(commands.includes('shapescript.restartServer'));
    const source = ['extension.ts', 'architecture.ts', 'tensorView.ts']
      .map((file) => fs.readFileSync(path.join(ROOT, 'src', file), 'utf8'))
      .join('\n');
    for (const c of commands) {
      assert.ok(source.includes(`'${c}'`), `the extension registers ${c}`);
    }
  });

  it('contributes the command the server\'s Verify lenses call, which sends shapescript/verify', () => {
    const commands = pkg.contributes.commands.map((c: { command: string }) => c.command);
    assert.ok(commands.includes('shapescript.verify'));
    const source = fs.readFileSync(path.join(ROOT, 'src', 'extension.ts'), 'utf8');
    assert.ok(source.includes("sendRequest<VerifyAnswer>('shapescript/verify'"));
  });

  it('contributes the Architecture tab: its commands, context menu entry and settings', () => {
    const menu = pkg.contributes.menus['editor/context'];
    assert.ok(menu.some((m: { command: string }) => m.command === 'shapescript.architecture.show'));
    const props = pkg.contributes.configuration.properties;
    assert.equal(props['shapescript.architecture.followCursor'].default, true);
    // The tab opens only when asked, unless this setting says otherwise (issue 31, item 8).
    const openAutomatically = props['shapescript.architecture.openAutomatically'];
    assert.ok(openAutomatically, 'shapescript.architecture.openAutomatically is declared');
    assert.equal(openAutomatically.type, 'boolean');
    assert.equal(openAutomatically.default, false);
    assert.match(openAutomatically.markdownDescription, /Show architecture/);
    assert.deepEqual(props['shapescript.architecture.detail'].enum, ['layers', 'operations']);
    assert.equal(props['shapescript.architecture.detail'].default, 'layers');
  });

  it('has been compiled to its main file', () => {
    assert.ok(fs.existsSync(path.join(ROOT, pkg.main)), `${pkg.main} exists (npm run compile)`);
  });
});

describe('language-configuration.json', () => {
  const conf = readJson('language-configuration.json');

  it('comments with #, brackets () and []', () => {
    assert.equal(conf.comments.lineComment, '#');
    assert.deepEqual(conf.brackets, [['(', ')'], ['[', ']']]);
    const pairs = conf.autoClosingPairs.map((p: { open: string; close: string }) => p.open + p.close);
    for (const p of ['()', '[]', '""']) {
      assert.ok(pairs.includes(p), p);
    }
  });

  it('indents after a line that ends with a colon, not after a comment or string that does', () => {
    const indent = conf.onEnterRules.find((r: { action: { indent: string } }) => r.action.indent === 'indent');
    const enter = new RegExp(indent.beforeText);
    const increase = new RegExp(conf.indentationRules.increaseIndentPattern);
    for (const line of [
      'fn causal_attention(x: [b n D], w_qkv: [D 3*D], w_o: [D D]) -> [b n D]:',
      'model Attention:',
      '    for i in 0..n:',
      '    if x > 0:   # positive',
      '    else:',
    ]) {
      assert.ok(enter.test(line), line);
      assert.ok(increase.test(line), line);
    }
    for (const line of [
      'dim D = 768',
      '# a comment that ends with a colon:',
      '    x = 1  # note:',
      '    param w_o: [D D] = normal(std=0.02)',
      '    s = "a:"',
      'fn f(x: [b n D]) -> [b n D] = x',
    ]) {
      assert.ok(!enter.test(line), line);
      assert.ok(!increase.test(line), line);
    }
    assert.ok(new RegExp(conf.indentationRules.decreaseIndentPattern).test('    else:'));
  });
});

describe('.vscodeignore', () => {
  const ignore = fs.readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8').split('\n').map((l) => l.trim());

  it('leaves sources, tests and maps out of the .vsix', () => {
    for (const pattern of ['src/**', 'out/test/**', '**/*.map', 'tsconfig.json']) {
      assert.ok(ignore.includes(pattern), pattern);
    }
    assert.ok(!ignore.some((l) => /^node_modules\/?(\*\*)?$/.test(l)), 'node_modules (run-time dependencies) stay in');
  });
});
