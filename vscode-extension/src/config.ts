// Settings, the choice of Python and the server command: pure logic, no `vscode` import.
//
// extension.ts hands in the few VS Code objects this needs (a configuration
// section, the Python extension) through the small interfaces below, so the
// tests run it with stubs in plain Node.
import * as os from 'os';
import * as path from 'path';

/** The part of `vscode.WorkspaceConfiguration` read here (the `shapescript` section). */
export interface ConfigurationLike {
  get<T>(section: string): T | undefined;
}

/** `{ id, path }` as the Python extension's `environments.getActiveEnvironmentPath()` returns it. */
export interface EnvironmentPathLike {
  readonly id?: string;
  readonly path: string;
}

/** The part of the Python extension's API (`ms-python.python` exports) used here. */
export interface PythonApiLike {
  readonly environments?: {
    getActiveEnvironmentPath(resource?: unknown): EnvironmentPathLike | undefined;
    resolveEnvironment?(
      environment: EnvironmentPathLike | string,
    ): PromiseLike<{ readonly executable?: { readonly uri?: { readonly fsPath: string } } } | undefined>;
    onDidChangeActiveEnvironmentPath?: unknown;
  };
}

/** The part of `vscode.Extension<T>` used here. */
export interface ExtensionLike<T> {
  readonly isActive: boolean;
  readonly exports: T;
  activate(): PromiseLike<T>;
}

export const SECTION = 'shapescript';
export const PYTHON_EXTENSION_ID = 'ms-python.python';
export const SERVER_MODULE = 'shapescript_lsp';
const WORKSPACE_FOLDER = '${workspaceFolder}';

export interface Settings {
  /** `shapescript.python`, trimmed; '' when unset. */
  python: string;
  /** `shapescript.server.args`. */
  serverArgs: string[];
  /** `shapescript.hover.pictures`. */
  hoverPictures: boolean;
  /** `shapescript.inlayHints.bindings`: a type hint after each bound name. */
  bindingHints: boolean;
  /** `shapescript.pythonModules`: write model.py beside model.ss on open and save. */
  pythonModules: boolean;
}

/** Reads the `shapescript` section, tolerating values of the wrong type (a hand-edited settings.json). */
export function readSettings(config: ConfigurationLike): Settings {
  const python = config.get<unknown>('python');
  const args = config.get<unknown>('server.args');
  const pictures = config.get<unknown>('hover.pictures');
  const bindings = config.get<unknown>('inlayHints.bindings');
  const modules = config.get<unknown>('pythonModules');
  return {
    python: typeof python === 'string' ? python.trim() : '',
    serverArgs: Array.isArray(args) ? args.filter((a): a is string => typeof a === 'string') : [],
    hoverPictures: typeof pictures === 'boolean' ? pictures : true,
    bindingHints: typeof bindings === 'boolean' ? bindings : true,
    pythonModules: typeof modules === 'boolean' ? modules : true,
  };
}

/** The interpreter used when neither the setting nor the Python extension gives one. */
export function defaultPython(platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? 'python' : 'python3';
}

/** Expands a leading `~` and `${workspaceFolder}` in a configured path, as the Python extension does. */
export function expandPath(value: string, workspaceFolder?: string, home: string = os.homedir()): string {
  let out = value;
  if (workspaceFolder !== undefined) {
    out = out.split('${workspaceFolder}').join(workspaceFolder);
  }
  if (out === '~') {
    return home;
  }
  if (out.startsWith('~/') || out.startsWith('~\\')) {
    return path.join(home, out.slice(2));
  }
  return out;
}

export type PythonSource = 'setting' | 'python-extension' | 'default';

export interface PythonChoice {
  python: string;
  source: PythonSource;
  /** Why the Python extension wasn't used, when it wasn't (for the output channel). */
  note?: string;
}

export interface ChoosePythonOptions {
  workspaceFolder?: string;
  platform?: NodeJS.Platform;
  home?: string;
  /** A resource for `getActiveEnvironmentPath` (the workspace folder's URI). */
  resource?: unknown;
  /** Whether the workspace is trusted (default: trusted). */
  workspaceTrusted?: boolean;
}

/**
 * The Python that runs the language server, in this order:
 * 1. `shapescript.python`, if set;
 * 2. the Python extension's active interpreter, if that extension is installed
 *    (every call into it is guarded: an old, broken or slow-to-activate Python
 *    extension must never stop ShapeScript from starting);
 * 3. `python3` (`python` on Windows).
 *
 * In an untrusted workspace no interpreter of the workspace is chosen: the Python
 * extension (which may have picked the workspace's `.venv`) is not asked, and a
 * `shapescript.python` that names `${workspaceFolder}` is not used. VS Code already
 * hides the setting's workspace value there (package.json's `restrictedConfigurations`).
 */
export async function choosePython(
  settings: Settings,
  getPythonExtension: () => ExtensionLike<PythonApiLike> | undefined,
  options: ChoosePythonOptions = {},
): Promise<PythonChoice> {
  const trusted = options.workspaceTrusted !== false;
  let note: string | undefined;
  if (settings.python && (trusted || !settings.python.includes(WORKSPACE_FOLDER))) {
    return { python: expandPath(settings.python, options.workspaceFolder, options.home), source: 'setting' };
  }
  if (!trusted) {
    note = settings.python
      ? `the workspace is untrusted, and shapescript.python names ${WORKSPACE_FOLDER}`
      : `the workspace is untrusted, so ${PYTHON_EXTENSION_ID}'s interpreter is not used`;
    return { python: defaultPython(options.platform), source: 'default', note };
  }
  try {
    const ext = getPythonExtension();
    if (!ext) {
      note = `${PYTHON_EXTENSION_ID} is not installed`;
    } else {
      const api = ext.isActive ? ext.exports : await ext.activate();
      const envs = api?.environments;
      const active = envs?.getActiveEnvironmentPath(options.resource);
      if (active && typeof active.path === 'string' && active.path) {
        let python = active.path;
        // `path` may be an environment's folder (conda); the resolved executable is what we can run.
        if (typeof envs?.resolveEnvironment === 'function') {
          try {
            const resolved = await envs.resolveEnvironment(active);
            const exe = resolved?.executable?.uri?.fsPath;
            if (typeof exe === 'string' && exe) {
              python = exe;
            }
          } catch {
            // keep the path as given
          }
        }
        return { python, source: 'python-extension' };
      }
      note = `${PYTHON_EXTENSION_ID} has no active interpreter`;
    }
  } catch (e) {
    note = `${PYTHON_EXTENSION_ID} failed: ${e instanceof Error ? e.message : String(e)}`;
  }
  return { python: defaultPython(options.platform), source: 'default', note };
}

export interface ServerCommand {
  command: string;
  args: string[];
}

/** `[python, "-m", "shapescript_lsp", ...shapescript.server.args]`. */
export function serverCommand(python: string, serverArgs: readonly string[] = []): ServerCommand {
  return { command: python, args: ['-m', SERVER_MODULE, ...serverArgs] };
}

export interface InitializationOptions {
  /** Where the server writes prelude.ss, nn.ss and builtins.ss (the extension's global storage). */
  libraryDir: string;
  /** The interpreter for pictures, imports and Python go-to-definition. */
  python: string;
  /** Whether hovers may run the file's functions to draw pictures. */
  pictures: boolean;
  /** `shapescript.hover.pictures`: whether hovers show images at all (shapes need no trust). */
  hoverImages: boolean;
  /** The colour theme's kind, so pictures are drawn on its background. */
  theme: ThemeName;
  /** `bindings`: whether bound names get type hints (the server's `inlayHints.bindings`). */
  inlayHints: { bindings: boolean };
  /** Whether the server writes the Python module beside each `.ss` file it opens or saves:
   * the setting, and never in an untrusted workspace. */
  pythonModules: boolean;
}

/** Pictures run the user's code: only in a trusted workspace, and only if the setting allows it. */
export function picturesAllowed(workspaceTrusted: boolean, hoverPictures: boolean): boolean {
  return workspaceTrusted && hoverPictures;
}

/** The theme kinds the server draws pictures for. */
export type ThemeName = 'light' | 'dark' | 'highContrast' | 'highContrastLight';

/** `vscode.ColorThemeKind` (1 light, 2 dark, 3 high contrast, 4 high contrast light) as the
 * name the server takes in the `theme` option and `shapescript/setTheme`. */
export function themeName(kind: number): ThemeName {
  const names: Record<number, ThemeName> = { 1: 'light', 2: 'dark', 3: 'highContrast', 4: 'highContrastLight' };
  return names[kind] ?? 'dark';
}

export function initializationOptions(
  libraryDir: string,
  python: string,
  workspaceTrusted: boolean,
  hoverPictures: boolean,
  bindingHints = true,
  theme: ThemeName = 'dark',
  pythonModules = true,
): InitializationOptions {
  return {
    libraryDir,
    python,
    pictures: picturesAllowed(workspaceTrusted, hoverPictures),
    hoverImages: hoverPictures,
    theme,
    inlayHints: { bindings: bindingHints },
    pythonModules: workspaceTrusted && pythonModules,
  };
}

/** Settings the server reads once, at start: a change restarts it. */
export const START_OPTION_SETTINGS = [
  `${SECTION}.inlayHints.bindings`,
  `${SECTION}.pythonModules`,
] as const;

/** The settings whose change needs a new server process (the interpreter, or its arguments). */
export const RESTART_SETTINGS = [`${SECTION}.python`, `${SECTION}.server.args`] as const;

/** Quotes a command line for the output channel (not for a shell). */
export function displayCommand(cmd: ServerCommand): string {
  return [cmd.command, ...cmd.args].map((a) => (/[\s"']/.test(a) || a === '' ? JSON.stringify(a) : a)).join(' ');
}
