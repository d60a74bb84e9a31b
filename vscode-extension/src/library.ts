// Library files (prelude.ss, nn.ss, builtins.ss) as read-only documents: pure logic, no `vscode` import.
//
// The language server writes the library into the `libraryDir` folder (the
// extension's global storage) and points at it with file:// locations, for
// go to definition and anything else. The extension shows those files under
// the `shapescript-library:` scheme, whose documents VS Code can't edit, by
// converting URIs at the protocol boundary (LanguageClientOptions.uriConverters):
// every URI from the server that lies inside the library folder becomes
// `shapescript-library:/<path inside the folder>`, and back to the file:// URI
// when it goes to the server. No per-feature middleware needed: definitions,
// references, document links and diagnostics all go through the converters.
import * as path from 'path';

export const LIBRARY_SCHEME = 'shapescript-library';

/** The part of `vscode.Uri` used here. */
export interface UriLike {
  readonly scheme: string;
  readonly path: string;
  readonly fsPath: string;
  toString(): string;
}

/** The static half of `vscode.Uri` used here (`vscode.Uri` itself fits). */
export interface UriFactory<U extends UriLike> {
  parse(value: string): U;
  file(fsPath: string): U;
  from(components: { scheme: string; path: string }): U;
}

type PathApi = typeof path.posix;

function pathApiFor(platform: NodeJS.Platform): PathApi {
  return platform === 'win32' ? path.win32 : path.posix;
}

/**
 * `file`'s path relative to `dir`, with `/` separators, if `file` is inside
 * `dir` (not `dir` itself); undefined otherwise. Case-insensitive on Windows.
 */
export function relativeInside(dir: string, file: string, platform: NodeJS.Platform = process.platform): string | undefined {
  if (!dir || !file) {
    return undefined;
  }
  const p = pathApiFor(platform);
  let d = p.resolve(dir);
  let f = p.resolve(file);
  if (platform === 'win32') {
    d = d.toLowerCase();
    f = f.toLowerCase();
  }
  const rel = p.relative(d, f);
  if (!rel || rel === '..' || rel.startsWith('..' + p.sep) || p.isAbsolute(rel)) {
    return undefined;
  }
  // keep the file's own spelling of the part inside the folder
  const original = p.resolve(file);
  const inside = original.slice(original.length - rel.length);
  return inside.split(p.sep).join('/');
}

export class LibraryUris<U extends UriLike> {
  constructor(
    readonly libraryDir: string,
    private readonly uris: UriFactory<U>,
    private readonly platform: NodeJS.Platform = process.platform,
  ) {}

  /** `shapescript-library:/prelude.ss` for `file:///…/globalStorage/shapescript.shapescript/prelude.ss`; else undefined. */
  toLibraryUri(uri: U): U | undefined {
    if (uri.scheme !== 'file') {
      return undefined;
    }
    const rel = relativeInside(this.libraryDir, uri.fsPath, this.platform);
    return rel === undefined ? undefined : this.uris.from({ scheme: LIBRARY_SCHEME, path: '/' + rel });
  }

  /**
   * The file a `shapescript-library:` URI stands for, or undefined for another
   * scheme or a path that would leave the library folder (`..`).
   */
  libraryFile(uri: U): string | undefined {
    if (uri.scheme !== LIBRARY_SCHEME) {
      return undefined;
    }
    const parts = uri.path.split('/').filter((s) => s !== '' && s !== '.');
    if (parts.length === 0 || parts.some((s) => s === '..' || s.includes('\\'))) {
      return undefined;
    }
    const p = pathApiFor(this.platform);
    const file = p.join(this.libraryDir, ...parts);
    return relativeInside(this.libraryDir, file, this.platform) === undefined ? undefined : file;
  }

  /** uriConverters.protocol2Code: what the server sends, as VS Code should open it. */
  fromServer(value: string): U {
    const uri = this.uris.parse(value);
    return this.toLibraryUri(uri) ?? uri;
  }

  /** uriConverters.code2Protocol: a library document goes to the server as its file:// URI. */
  toServer(uri: U): string {
    const file = this.libraryFile(uri);
    return file === undefined ? uri.toString() : this.uris.file(file).toString();
  }
}
