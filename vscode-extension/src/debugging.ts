// Launch configurations of type "shapescript": run a program under debugpy with
// `python -m shapescript`, so breakpoints in .ss files stop (see the README).
import type * as vscode from 'vscode';
import { SECTION, defaultPython, readSettings } from './config';

/** What a "shapescript" launch configuration says. */
export interface ShapeScriptLaunch {
  name?: string;
  request?: string;
  /** A Python file, or a .ss file whose fn main() runs. */
  program?: string;
  /** A module run as `-m module`, instead of a program. */
  module?: string;
  args?: string[];
  python?: string;
  cwd?: string;
  justMyCode?: boolean;
  [key: string]: unknown;
}

/** The debugpy configuration that runs a ShapeScript launch configuration. */
export function debugpyConfiguration(launch: ShapeScriptLaunch): Record<string, unknown> {
  const args = Array.isArray(launch.args) ? launch.args.filter((a) => typeof a === 'string') : [];
  const target = typeof launch.module === 'string' && launch.module
    ? ['-m', launch.module]
    : [typeof launch.program === 'string' && launch.program ? launch.program : '${file}'];
  const resolved: Record<string, unknown> = {
    name: launch.name ?? 'ShapeScript',
    type: 'debugpy',
    request: 'launch',
    module: 'shapescript',
    args: [...target, ...args],
    console: typeof launch.console === 'string' ? launch.console : 'integratedTerminal',
    justMyCode: launch.justMyCode ?? true,
  };
  if (typeof launch.cwd === 'string') {
    resolved.cwd = launch.cwd;
  }
  if (typeof launch.python === 'string' && launch.python) {
    resolved.python = launch.python;
  }
  if (launch.env && typeof launch.env === 'object') {
    resolved.env = launch.env;
  }
  return resolved;
}

/** The Python Debugger extension, which debugs `debugpy` configurations. */
export const DEBUGPY_EXTENSION_ID = 'ms-python.debugpy';

/** The configuration to launch: debugpy's, or, without the Python Debugger extension, the
 * same kept as a "shapescript" one, which this extension runs with debugpy's own adapter. */
export function launchConfiguration(launch: ShapeScriptLaunch, hasDebugpyExtension: boolean): Record<string, unknown> {
  const resolved = debugpyConfiguration(launch);
  return hasDebugpyExtension ? resolved : { ...resolved, type: 'shapescript' };
}

/** How to start debugpy's adapter (`python -m debugpy.adapter`, on stdin and stdout) for a
 * configuration: its `python`, else the `shapescript.python` setting, else python3. */
export function adapterCommand(config: { python?: unknown }, settingPython: string, fallback: string): { command: string; args: string[] } {
  const python = typeof config.python === 'string' && config.python ? config.python : settingPython || fallback;
  return { command: python, args: ['-m', 'debugpy.adapter'] };
}

/** Register the provider that turns "shapescript" configurations into debugpy ones. */
export function registerDebugging(api: typeof vscode, context: vscode.ExtensionContext): void {
  const hasDebugpy = () => api.extensions.getExtension(DEBUGPY_EXTENSION_ID) !== undefined;
  const provider: vscode.DebugConfigurationProvider = {
    resolveDebugConfiguration(_folder, config) {
      const launch = !config.type && !config.request && !config.name
        // F5 without a launch.json: run the open file.
        ? { name: 'ShapeScript: current file', program: '${file}' }
        : config as ShapeScriptLaunch;
      return launchConfiguration(launch, hasDebugpy()) as vscode.DebugConfiguration;
    },
  };
  const adapter: vscode.DebugAdapterDescriptorFactory = {
    createDebugAdapterDescriptor(session) {
      const python = readSettings(api.workspace.getConfiguration(SECTION)).python;
      const { command, args } = adapterCommand(session.configuration as { python?: unknown }, python, defaultPython());
      return new api.DebugAdapterExecutable(command, args);
    },
  };
  context.subscriptions.push(
    api.debug.registerDebugConfigurationProvider('shapescript', provider),
    api.debug.registerDebugAdapterDescriptorFactory('shapescript', adapter),
  );
}
