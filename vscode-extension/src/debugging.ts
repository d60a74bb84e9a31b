// Launch configurations of type "shapescript": run a program under debugpy with
// `python -m shapescript`, so breakpoints in .ss files stop (see the README).
import type * as vscode from 'vscode';

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
    console: 'integratedTerminal',
    justMyCode: launch.justMyCode ?? true,
  };
  if (typeof launch.cwd === 'string') {
    resolved.cwd = launch.cwd;
  }
  if (typeof launch.python === 'string' && launch.python) {
    resolved.python = launch.python;
  }
  return resolved;
}

/** Register the provider that turns "shapescript" configurations into debugpy ones. */
export function registerDebugging(api: typeof vscode, context: vscode.ExtensionContext): void {
  const provider: vscode.DebugConfigurationProvider = {
    resolveDebugConfiguration(_folder, config) {
      if (!config.type && !config.request && !config.name) {
        // F5 without a launch.json: run the open file.
        return debugpyConfiguration({ name: 'ShapeScript: current file', program: '${file}' }) as vscode.DebugConfiguration;
      }
      return debugpyConfiguration(config as ShapeScriptLaunch) as vscode.DebugConfiguration;
    },
  };
  context.subscriptions.push(api.debug.registerDebugConfigurationProvider('shapescript', provider));
}
