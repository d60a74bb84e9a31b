// A tiny stand-in for the parts of the `vscode` module that config.ts,
// library.ts and hover.ts are handed. Those modules never import `vscode`;
// extension.ts passes them the real objects, and the tests pass these.
//
// Uri is `vscode-uri`, the same URI class VS Code itself uses, so parsing,
// fsPath and toString() (percent-encoding) behave as they do in the editor.
import { URI } from 'vscode-uri';
import type { ConfigurationLike, EnvironmentPathLike, ExtensionLike, PythonApiLike } from '../../config';
import type { UriFactory } from '../../library';

export const Uri: UriFactory<URI> = {
  parse: (value) => URI.parse(value),
  file: (fsPath) => URI.file(fsPath),
  from: (components) => URI.from(components),
};
export type Uri = URI;

/** `vscode.workspace.getConfiguration('shapescript')` with the given values (keys without the prefix). */
export class Configuration implements ConfigurationLike {
  constructor(private readonly values: Record<string, unknown> = {}) {}

  get<T>(section: string): T | undefined {
    return this.values[section] as T | undefined;
  }
}

/** The Python extension, as `vscode.extensions.getExtension('ms-python.python')` returns it. */
export class PythonExtension implements ExtensionLike<PythonApiLike> {
  activations = 0;
  resource: unknown;

  constructor(
    public isActive: boolean,
    private readonly active: EnvironmentPathLike | undefined | (() => EnvironmentPathLike | undefined),
    private readonly resolved: Record<string, string> = {},
  ) {}

  get exports(): PythonApiLike {
    return {
      environments: {
        getActiveEnvironmentPath: (resource?: unknown) => {
          this.resource = resource;
          return typeof this.active === 'function' ? this.active() : this.active;
        },
        resolveEnvironment: async (env: EnvironmentPathLike | string) => {
          const key = typeof env === 'string' ? env : env.path;
          const exe = this.resolved[key];
          return exe ? { executable: { uri: { fsPath: exe } } } : undefined;
        },
      },
    };
  }

  activate(): Promise<PythonApiLike> {
    this.activations++;
    this.isActive = true;
    return Promise.resolve(this.exports);
  }
}

/** A `vscode.MarkdownString` as the language client builds it for a hover. */
export class MarkdownString {
  isTrusted?: boolean | { readonly enabledCommands: readonly string[] };
  supportHtml?: boolean;

  constructor(public value = '') {}

  appendMarkdown(value: string): this {
    this.value += value;
    return this;
  }
}
