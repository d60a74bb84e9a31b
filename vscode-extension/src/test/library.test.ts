import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LIBRARY_SCHEME, LibraryUris, relativeInside } from '../library';
import { Uri } from './stubs/vscode';

const LIB = '/home/me/.config/Code/User/globalStorage/shapescript.shapescript';
const lib = new LibraryUris(LIB, Uri, 'linux');

describe('library URIs from the server', () => {
  it('a file:// location in the library folder opens as shapescript-library:', () => {
    const uri = lib.fromServer(`file://${LIB}/prelude.ss`);
    assert.equal(uri.scheme, LIBRARY_SCHEME);
    assert.equal(uri.path, '/prelude.ss');
    assert.equal(uri.toString(), 'shapescript-library:/prelude.ss');
    assert.equal(lib.fromServer(`file://${LIB}/std/nn.ss`).toString(), 'shapescript-library:/std/nn.ss');
  });

  it('other URIs are left as they are', () => {
    for (const value of [
      'file:///work/proj/model.ss',
      `file://${LIB}`,                                   // the folder itself
      `file://${LIB}2/prelude.ss`,                        // a sibling folder with a longer name
      `file://${LIB}/../prelude.ss`,                      // outside, once normalised
      'untitled:Untitled-1',
      'vscode-notebook-cell:/work/nb.ipynb#W1sZmlsZQ%3D%3D',
    ]) {
      const uri = lib.fromServer(value);
      assert.equal(uri.toString(), Uri.parse(value).toString(), value);
      assert.notEqual(uri.scheme, LIBRARY_SCHEME, value);
    }
  });

  it('handles percent-encoded folders (macOS "Application Support")', () => {
    const mac = new LibraryUris('/Users/me/Library/Application Support/Code/User/globalStorage/shapescript.shapescript', Uri, 'darwin');
    const from = 'file:///Users/me/Library/Application%20Support/Code/User/globalStorage/shapescript.shapescript/builtins.ss';
    const uri = mac.fromServer(from);
    assert.equal(uri.toString(), 'shapescript-library:/builtins.ss');
    assert.equal(mac.toServer(uri), from);
  });
});

describe('library URIs to the server', () => {
  it('a shapescript-library: document goes back as its file:// URI', () => {
    const uri = Uri.parse('shapescript-library:/nn.ss');
    assert.equal(lib.libraryFile(uri), `${LIB}/nn.ss`);
    assert.equal(lib.toServer(uri), `file://${LIB}/nn.ss`);
  });

  it('round-trips', () => {
    const file = `file://${LIB}/prelude.ss`;
    assert.equal(lib.toServer(lib.fromServer(file)), file);
  });

  it('leaves other documents alone', () => {
    const uri = Uri.file('/work/proj/a b.ss');
    assert.equal(lib.toServer(uri), uri.toString());
    assert.equal(lib.libraryFile(uri), undefined);
  });

  it('never serves a file outside the library folder', () => {
    for (const bad of ['shapescript-library:/../secrets.txt', 'shapescript-library:/a/../../x.ss', 'shapescript-library:/',
      'shapescript-library:/..%5Cx.ss']) {
      assert.equal(lib.libraryFile(Uri.parse(bad)), undefined, bad);
    }
  });
});

describe('relativeInside', () => {
  it('is case-insensitive on Windows and keeps the file\'s spelling', () => {
    assert.equal(relativeInside('C:\\Users\\Me\\AppData\\Roaming\\Code\\User\\globalStorage\\shapescript.shapescript',
      'c:\\users\\me\\appdata\\roaming\\code\\user\\globalstorage\\shapescript.shapescript\\Prelude.ss', 'win32'), 'Prelude.ss');
    assert.equal(relativeInside('C:\\lib', 'C:\\lib2\\x.ss', 'win32'), undefined);
    assert.equal(relativeInside('C:\\lib', 'D:\\lib\\x.ss', 'win32'), undefined);
  });

  it('is case-sensitive elsewhere', () => {
    assert.equal(relativeInside('/a/lib', '/a/lib/sub/x.ss', 'linux'), 'sub/x.ss');
    assert.equal(relativeInside('/a/lib', '/a/LIB/x.ss', 'linux'), undefined);
    assert.equal(relativeInside('', '/x.ss', 'linux'), undefined);
  });
});
