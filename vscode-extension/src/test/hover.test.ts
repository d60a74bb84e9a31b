import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { trustHover } from '../hover';
import { MarkdownString } from './stubs/vscode';

describe('trustHover', () => {
  it('lets hover markdown render HTML and data: images, and run command links', () => {
    const md = new MarkdownString('`x: [b n D]`\n\n![curve](data:image/png;base64,iVBORw0KGgo=|width=320)');
    const hover = { contents: [md, { language: 'shapescript', value: 'fn f(x: Real) -> Real' }] };
    assert.equal(trustHover(hover), hover);
    assert.equal(md.isTrusted, true);
    assert.equal(md.supportHtml, true);
    assert.deepEqual(hover.contents[1], { language: 'shapescript', value: 'fn f(x: Real) -> Real' });
  });

  it('in an untrusted workspace, only the given commands', () => {
    const md = new MarkdownString('x');
    trustHover({ contents: [md] }, { enabledCommands: ['shapescript.restartServer'] });
    assert.deepEqual(md.isTrusted, { enabledCommands: ['shapescript.restartServer'] });
    assert.equal(md.supportHtml, true);
  });

  it('passes no hover through', () => {
    assert.equal(trustHover(null), null);
    assert.equal(trustHover(undefined), undefined);
  });
});
