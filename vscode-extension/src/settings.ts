import * as os from 'os';
import * as vscode from 'vscode';
import { expandPath } from './variables';

/** The settings the extension itself reads; the server reads the rest of the `abl` section. */
export interface ExtensionSettings {
  /** Python for the bundled server; empty: look for one. */
  readonly interpreter: string;
  /** An installed `abl` command to use instead of the bundled server; empty: bundled. */
  readonly serverPath: string;
  readonly runTraceLevel: string;
}

/** Settings that change how the server is started, so changing them restarts it. */
export const LAUNCH_SETTINGS = ['abl.interpreter', 'abl.server.path'] as const;

export function readSettings(): ExtensionSettings {
  const folder = primaryFolder();
  const config = vscode.workspace.getConfiguration('abl', folder?.uri);
  const path = (key: string) => {
    const value = config.get<string>(key, '');
    return value.trim() ? expandPath(value, folder?.uri.fsPath, os.homedir()) : '';
  };
  return {
    interpreter: path('interpreter'),
    serverPath: path('server.path'),
    runTraceLevel: config.get<string>('run.traceLevel', 'standard'),
  };
}

/** The folder whose settings and interpreter the (single) server uses: the first one. */
export function primaryFolder(): vscode.WorkspaceFolder | undefined {
  return vscode.workspace.workspaceFolders?.[0];
}
