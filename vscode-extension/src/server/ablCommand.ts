import * as fs from 'fs';
import * as vscode from 'vscode';
import { MINIMUM_PYTHON } from '../pythonVersion';
import { ExtensionSettings, primaryFolder } from '../settings';
import { findInterpreter } from './interpreter';

/** How to run `abl`: the bundled package on a Python that was found, or an installed command. */
export interface AblCommand {
  readonly executable: string;
  /** Arguments before the subcommand (`-m abl` for the bundled package). */
  readonly args: readonly string[];
  /** Variables added to the environment. */
  readonly env: Readonly<Record<string, string>>;
  /** One line for the output: what runs, and where it was found. */
  readonly description: string;
}

/** Why `abl` cannot run, for a notification that says how to fix it. */
export interface LaunchProblem {
  readonly message: string;
  readonly setting: 'abl.interpreter' | 'abl.server.path';
  readonly offerPythonDownload: boolean;
}

export type Resolution = { readonly command: AblCommand } | { readonly problem: LaunchProblem };

export async function resolveAblCommand(settings: ExtensionSettings, bundledLibs: string): Promise<Resolution> {
  if (settings.serverPath) {
    return installedCommand(settings.serverPath);
  }
  if (!fs.existsSync(bundledLibs)) {
    return {
      problem: {
        message: `The language server bundled with the extension is missing (${bundledLibs}). Reinstall the extension, or set abl.server.path to an installed abl.`,
        setting: 'abl.server.path',
        offerPythonDownload: false,
      },
    };
  }
  const search = await findInterpreter(settings.interpreter, primaryFolder()?.uri);
  if (search.found === undefined) {
    const tried = search.rejected.map((r) => `${r.command} (from ${r.source}): ${r.reason}`).join('; ');
    const needed = `Python ${MINIMUM_PYTHON.join('.')} or newer`;
    const message = settings.interpreter
      ? `ABL cannot start its language server: abl.interpreter is not ${needed}. Tried ${tried}.`
      : `ABL needs ${needed} to run its language server, and found none. Tried ${tried}. Install Python, or set abl.interpreter to one.`;
    return { problem: { message, setting: 'abl.interpreter', offerPythonDownload: true } };
  }
  const { executable, version, source } = search.found;
  return {
    command: {
      executable,
      args: ['-m', 'abl'],
      // Only the bundled packages: another PYTHONPATH could shadow them with other versions.
      env: { PYTHONPATH: bundledLibs },
      description: `the bundled server on Python ${version} (${executable}, from ${source})`,
    },
  };
}

function installedCommand(serverPath: string): Resolution {
  if (!fs.existsSync(serverPath)) {
    return {
      problem: {
        message: `abl.server.path is ${serverPath}, which does not exist. Point it at an installed abl command, or clear it to use the bundled server.`,
        setting: 'abl.server.path',
        offerPythonDownload: false,
      },
    };
  }
  return { command: { executable: serverPath, args: [], env: {}, description: `the installed server ${serverPath} (from abl.server.path)` } };
}

/** Opens the Settings editor on `setting`. */
export function openSetting(setting: string): Thenable<unknown> {
  return vscode.commands.executeCommand('workbench.action.openSettings', setting);
}
