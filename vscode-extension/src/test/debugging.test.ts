import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adapterCommand, debugpyConfiguration, launchConfiguration } from '../debugging';

describe('debugpyConfiguration', () => {
  it('runs a program with python -m shapescript', () => {
    assert.deepEqual(debugpyConfiguration({ name: 'Run', program: 'model.ss', args: ['--x', 3 as unknown as string] }), {
      name: 'Run',
      type: 'debugpy',
      request: 'launch',
      module: 'shapescript',
      args: ['model.ss', '--x'],
      console: 'integratedTerminal',
      justMyCode: true,
    });
  });

  it('runs a module with -m, with the Python and folder asked for', () => {
    const resolved = debugpyConfiguration({ module: 'train', python: '/venv/bin/python', cwd: '/w', justMyCode: false });
    assert.deepEqual(resolved.args, ['-m', 'train']);
    assert.equal(resolved.python, '/venv/bin/python');
    assert.equal(resolved.cwd, '/w');
    assert.equal(resolved.justMyCode, false);
  });

  it('runs the open file when no program is named', () => {
    assert.deepEqual(debugpyConfiguration({}).args, ['${file}']);
  });
});

describe('without the Python Debugger extension', () => {
  it('keeps the configuration as a shapescript one, run by debugpy\'s own adapter', () => {
    assert.equal(launchConfiguration({ program: 'model.ss' }, true).type, 'debugpy');
    const own = launchConfiguration({ program: 'model.ss' }, false);
    assert.deepEqual([own.type, own.module, own.args], ['shapescript', 'shapescript', ['model.ss']]);
  });

  it("starts the adapter with the configuration's Python, else the setting's, else python3", () => {
    assert.deepEqual(adapterCommand({ python: '/venv/bin/python' }, '/set/python', 'python3'), { command: '/venv/bin/python', args: ['-m', 'debugpy.adapter'] });
    assert.equal(adapterCommand({}, '/set/python', 'python3').command, '/set/python');
    assert.equal(adapterCommand({}, '', 'python3').command, 'python3');
  });
});
