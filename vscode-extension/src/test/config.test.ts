import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  choosePython,
  defaultPython,
  expandPath,
  initializationOptions,
  themeName,
  readSettings,
  serverCommand,
  Settings,
} from '../config';
import { Configuration, PythonExtension } from './stubs/vscode';
import { whenTrusted } from '../trust';

const settings = (python = '', serverArgs: string[] = []): Settings => ({ python, serverArgs, hoverPictures: true, bindingHints: true, pythonModules: true });

describe('readSettings', () => {
  it('has the documented defaults', () => {
    assert.deepEqual(readSettings(new Configuration()), { python: '', serverArgs: [], hoverPictures: true, bindingHints: true, pythonModules: true });
  });

  it('reads the values and ignores wrongly typed ones', () => {
    assert.deepEqual(
      readSettings(new Configuration({ python: '  /venv/bin/python ', 'server.args': ['--log', 3, 'debug'], 'hover.pictures': false, 'inlayHints.bindings': false })),
      { python: '/venv/bin/python', serverArgs: ['--log', 'debug'], hoverPictures: false, bindingHints: false, pythonModules: true },
    );
    assert.deepEqual(readSettings(new Configuration({ python: 7, 'server.args': '--x', 'hover.pictures': 'no', 'inlayHints.bindings': 'off' })),
      { python: '', serverArgs: [], hoverPictures: true, bindingHints: true, pythonModules: true });
  });
});

describe('choosePython', () => {
  it('1. shapescript.python wins, without touching the Python extension', async () => {
    const ext = new PythonExtension(false, { id: 'venv', path: '/ext/bin/python' });
    let asked = 0;
    const choice = await choosePython(settings('/opt/py/bin/python3'), () => { asked++; return ext; });
    assert.deepEqual(choice, { python: '/opt/py/bin/python3', source: 'setting' });
    assert.equal(asked, 0);
    assert.equal(ext.activations, 0);
  });

  it('expands ~ and ${workspaceFolder} in the setting', async () => {
    assert.equal((await choosePython(settings('${workspaceFolder}/.venv/bin/python'), () => undefined,
      { workspaceFolder: '/work/proj' })).python, '/work/proj/.venv/bin/python');
    assert.equal((await choosePython(settings('~/venvs/ss/bin/python'), () => undefined, { home: '/home/me' })).python,
      '/home/me/venvs/ss/bin/python');
  });

  it('2. else the Python extension\'s active interpreter, activating the extension if needed', async () => {
    const ext = new PythonExtension(false, { id: 'venv', path: '/proj/.venv/bin/python' });
    const choice = await choosePython(settings(), () => ext, { resource: 'folder-uri' });
    assert.deepEqual(choice, { python: '/proj/.venv/bin/python', source: 'python-extension' });
    assert.equal(ext.activations, 1);
    assert.equal(ext.resource, 'folder-uri');

    const active = new PythonExtension(true, { id: 'x', path: '/usr/bin/python3.12' });
    assert.equal((await choosePython(settings(), () => active)).python, '/usr/bin/python3.12');
    assert.equal(active.activations, 0);
  });

  it('uses the resolved executable when the extension gives an environment folder (conda)', async () => {
    const ext = new PythonExtension(true, { id: 'conda', path: '/opt/conda/envs/ml' }, { '/opt/conda/envs/ml': '/opt/conda/envs/ml/bin/python' });
    assert.equal((await choosePython(settings(), () => ext)).python, '/opt/conda/envs/ml/bin/python');
  });

  it('3. else python3, when the extension is missing, has no interpreter, or fails', async () => {
    const missing = await choosePython(settings(), () => undefined, { platform: 'linux' });
    assert.equal(missing.python, 'python3');
    assert.equal(missing.source, 'default');
    assert.match(missing.note ?? '', /not installed/);

    const none = await choosePython(settings(), () => new PythonExtension(true, undefined), { platform: 'darwin' });
    assert.deepEqual([none.python, none.source], ['python3', 'default']);

    const throwing = new PythonExtension(true, () => { throw new Error('API not ready'); });
    const failed = await choosePython(settings(), () => throwing, { platform: 'linux' });
    assert.deepEqual([failed.python, failed.source], ['python3', 'default']);
    assert.match(failed.note ?? '', /API not ready/);

    const badActivate = await choosePython(settings(), () => ({
      isActive: false,
      exports: {},
      activate: () => Promise.reject(new Error('activation failed')),
    }), { platform: 'linux' });
    assert.deepEqual([badActivate.python, badActivate.source], ['python3', 'default']);

    const noApi = await choosePython(settings(), () => ({ isActive: true, exports: {}, activate: () => Promise.resolve({}) }),
      { platform: 'linux' });
    assert.deepEqual([noApi.python, noApi.source], ['python3', 'default']);

    const getterThrows = await choosePython(settings(), () => { throw new Error('no extensions API'); }, { platform: 'linux' });
    assert.deepEqual([getterThrows.python, getterThrows.source], ['python3', 'default']);
  });

  it('is python on Windows', () => {
    assert.equal(defaultPython('win32'), 'python');
    assert.equal(defaultPython('linux'), 'python3');
  });
});

describe('expandPath', () => {
  it('leaves other paths alone', () => {
    assert.equal(expandPath('/usr/bin/python3', '/w', '/h'), '/usr/bin/python3');
    assert.equal(expandPath('python3.11', '/w', '/h'), 'python3.11');
    assert.equal(expandPath('~', undefined, '/h'), '/h');
    assert.equal(expandPath('a~/b', undefined, '/h'), 'a~/b');
  });
});

describe('serverCommand', () => {
  it('is python -m shapescript_lsp, then shapescript.server.args', () => {
    assert.deepEqual(serverCommand('/venv/bin/python'), { command: '/venv/bin/python', args: ['-m', 'shapescript_lsp'] });
    assert.deepEqual(serverCommand('python3', ['--log-file', '/tmp/ss.log']),
      { command: 'python3', args: ['-m', 'shapescript_lsp', '--log-file', '/tmp/ss.log'] });
  });
});

describe('initializationOptions', () => {
  it('sends libraryDir and python, and pictures only in a trusted workspace with the setting on', () => {
    assert.deepEqual(initializationOptions('/gs/shapescript.shapescript', '/venv/bin/python', true, true),
      { libraryDir: '/gs/shapescript.shapescript', python: '/venv/bin/python', pictures: true, hoverImages: true,
        theme: 'dark', inlayHints: { bindings: true }, pythonModules: true });
    assert.equal(initializationOptions('/l', 'p', false, true).pictures, false);
    assert.equal(initializationOptions('/l', 'p', true, false).pictures, false);
    assert.equal(initializationOptions('/l', 'p', false, false).pictures, false);
  });

  it('sends the setting as hoverImages even where pictures may not run code', () => {
    assert.equal(initializationOptions('/l', 'p', false, true).hoverImages, true);
    assert.equal(initializationOptions('/l', 'p', true, false).hoverImages, false);
  });

  it('sends the theme kind by name', () => {
    assert.equal(initializationOptions('/l', 'p', true, true, true, 'light').theme, 'light');
    assert.deepEqual([1, 2, 3, 4, 99].map(themeName), ['light', 'dark', 'highContrast', 'highContrastLight', 'dark']);
  });

  it('passes shapescript.inlayHints.bindings as the server\'s inlayHints.bindings', () => {
    assert.deepEqual(initializationOptions('/l', 'p', true, true, false).inlayHints, { bindings: false });
    assert.deepEqual(initializationOptions('/l', 'p', true, true, true).inlayHints, { bindings: true });
  });

  it('passes shapescript.pythonModules, on unless turned off', () => {
    assert.equal(initializationOptions('/l', 'p', true, true).pythonModules, true);
    assert.equal(initializationOptions('/l', 'p', true, true, true, 'dark', false).pythonModules, false);
    assert.equal(readSettings(new Configuration({ pythonModules: false })).pythonModules, false);
  });

  it('never lets the server write Python modules in an untrusted workspace', () => {
    assert.equal(initializationOptions('/l', 'p', false, true, true, 'dark', true).pythonModules, false);
    assert.equal(initializationOptions('/l', 'p', false, false).pythonModules, false);
  });
});

describe('choosePython in an untrusted workspace', () => {
  const untrusted = { workspaceTrusted: false, workspaceFolder: '/work/proj', home: '/home/me', platform: 'linux' as const };

  it('never asks the Python extension, whose interpreter may be the workspace\'s', async () => {
    const ext = new PythonExtension(false, { id: 'venv', path: '/work/proj/.venv/bin/python' });
    let asked = 0;
    const choice = await choosePython(settings(), () => { asked++; return ext; }, untrusted);
    assert.deepEqual([choice.python, choice.source], ['python3', 'default']);
    assert.equal(asked, 0);
    assert.equal(ext.activations, 0);
    assert.match(choice.note ?? '', /untrusted/);
  });

  it('uses shapescript.python from the user settings, unless it points into the workspace', async () => {
    assert.deepEqual(await choosePython(settings('~/venvs/ss/bin/python'), () => undefined, untrusted),
      { python: '/home/me/venvs/ss/bin/python', source: 'setting' });
    const inside = await choosePython(settings('${workspaceFolder}/.venv/bin/python'), () => undefined, untrusted);
    assert.deepEqual([inside.python, inside.source], ['python3', 'default']);
    assert.match(inside.note ?? '', /workspaceFolder/);
  });
});

describe('whenTrusted', () => {
  class Workspace {
    private listeners: (() => void)[] = [];
    constructor(public isTrusted: boolean) {}
    onDidGrantWorkspaceTrust(listener: () => void) {
      this.listeners.push(listener);
      return { dispose: () => { this.listeners = this.listeners.filter((l) => l !== listener); } };
    }
    grant(): void {
      this.isTrusted = true;
      for (const listener of [...this.listeners]) {
        listener();
      }
    }
  }

  it('in a trusted workspace, runs the trusted work at once and never restarts', () => {
    const calls: string[] = [];
    whenTrusted(new Workspace(true), () => calls.push('trusted'), () => calls.push('restart'));
    assert.deepEqual(calls, ['trusted']);
  });

  it('in an untrusted workspace, waits for trust, then runs it and restarts the server once', () => {
    const calls: string[] = [];
    const workspace = new Workspace(false);
    whenTrusted(workspace, () => calls.push('trusted'), () => calls.push('restart'));
    assert.deepEqual(calls, []);
    workspace.grant();
    assert.deepEqual(calls, ['trusted', 'restart']);
    workspace.grant();
    assert.deepEqual(calls, ['trusted', 'restart']);
  });
});
