import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CLICK_MS, LANDING_MS, Landing, actedAt, answerFor, innerCharacter, landingStep, opensAtOnce,
} from '../pythonNavigation';

describe('answerFor', () => {
  it('answers with the .ss declaration only when no other provider answers', () => {
    assert.equal(answerFor(false, false), 'own');
    assert.equal(answerFor(true, false), 'own');
  });

  it('waits for the landing when another provider answers in a Python file', () => {
    assert.equal(answerFor(false, true), 'await-landing');
  });

  it('keeps the other answer in the generated module (a Ctrl-hover, a peek)', () => {
    assert.equal(answerFor(true, true), 'none');
  });
});

describe('opensAtOnce', () => {
  it('opens the .ss file from the generated module for a go to definition asked for', () => {
    assert.ok(opensAtOnce(true, true));
    assert.ok(!opensAtOnce(true, false));
    assert.ok(!opensAtOnce(false, true));
    assert.ok(!opensAtOnce(false, false));
  });
});

describe('actedAt', () => {
  const at = { path: '/ws/model.py', line: 4, character: 6 };

  it('takes a request at the place of a recent click or F12 as asked for', () => {
    assert.ok(actedAt({ ...at, at: 1000 }, at, 1000 + CLICK_MS));
  });

  it('refuses another place, another file, an old click or none', () => {
    assert.ok(!actedAt({ ...at, character: 7, at: 1000 }, at, 1000));
    assert.ok(!actedAt({ ...at, line: 3, at: 1000 }, at, 1000));
    assert.ok(!actedAt({ ...at, path: '/ws/app.py', at: 1000 }, at, 1000));
    assert.ok(!actedAt({ ...at, at: 1000 }, at, 1001 + CLICK_MS));
    assert.ok(!actedAt(undefined, at, 1000));
  });
});

describe('landingStep', () => {
  const landing: Landing = { generated: '/ws/model.py', origin: '/ws/app.py', at: 1000, generatedWasOpen: false };

  it('replaces the landing editor, going back first and closing it', () => {
    assert.deepEqual(landingStep(landing, '/ws/model.py', '/ws/app.py', 1200),
      { replace: true, stepBack: true, close: true });
  });

  it('keeps a generated module that was already open in a tab', () => {
    assert.deepEqual(landingStep({ ...landing, generatedWasOpen: true }, '/ws/model.py', '/ws/app.py', 1200),
      { replace: true, stepBack: true, close: false });
  });

  it('goes back only when the editor before the landing is the one the request came from', () => {
    assert.deepEqual(landingStep(landing, '/ws/model.py', '/ws/other.py', 1200),
      { replace: true, stepBack: false, close: true });
  });

  it('leaves alone other files, late editors and editors without a request', () => {
    const nothing = { replace: false, stepBack: false, close: false };
    assert.deepEqual(landingStep(landing, '/ws/app.py', '/ws/model.ss', 1200), nothing);
    assert.deepEqual(landingStep(landing, '/ws/model.py', '/ws/app.py', 1001 + LANDING_MS), nothing);
    assert.deepEqual(landingStep(undefined, '/ws/model.py', '/ws/app.py', 1200), nothing);
    assert.deepEqual(landingStep(landing, undefined, '/ws/app.py', 1200), nothing);
  });
});

describe('innerCharacter', () => {
  it('asks elsewhere in the same word, so the request coming back is told apart', () => {
    // `double` at characters 6..12
    assert.equal(innerCharacter(6, 12, 9), 6);
    assert.equal(innerCharacter(6, 12, 12), 6);
    assert.equal(innerCharacter(6, 12, 6), 7);
  });

  it('keeps the place in a one-letter word', () => {
    assert.equal(innerCharacter(4, 5, 4), 4);
    assert.equal(innerCharacter(4, 5, 5), 5);
  });
});
