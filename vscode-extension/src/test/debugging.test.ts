import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { debugpyConfiguration } from '../debugging';

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
