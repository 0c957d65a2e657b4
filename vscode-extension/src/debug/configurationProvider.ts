import * as fs from 'fs';
import * as vscode from 'vscode';
import { workspaceAgents } from '../commands/runAgent';
import { LANGUAGE_ID } from '../language';
import { ActiveFile, checkPaths, Configuration, configurationFor, resolveConfiguration } from './launchConfig';

/** Fills in and checks `abl` debug configurations, and offers one per agent of the workspace
 * (the "ABL Agent" entries of Run and Debug's configuration list). */
export class AblConfigurationProvider implements vscode.DebugConfigurationProvider {
  resolveDebugConfiguration(folder: vscode.WorkspaceFolder | undefined, given: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    const resolution = resolveConfiguration(given as Configuration, activeFile(), (folder ?? vscode.workspace.workspaceFolders?.[0])?.uri.fsPath);
    if ('problem' in resolution) {
      void vscode.window.showErrorMessage(resolution.problem);
      return undefined; // nothing starts
    }
    return resolution.config as vscode.DebugConfiguration;
  }

  resolveDebugConfigurationWithSubstitutedVariables(_folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    const problem = checkPaths(config as Configuration, (file) => fs.existsSync(file));
    if (problem !== undefined) {
      void vscode.window.showErrorMessage(problem);
      return undefined;
    }
    return config;
  }

  async provideDebugConfigurations(): Promise<vscode.DebugConfiguration[]> {
    const agents = await workspaceAgents();
    return agents.map((agent) => configurationFor(agent.uri.fsPath, agent.name) as vscode.DebugConfiguration);
  }
}

/** The active editor's file, for a configuration that names none. */
export function activeFile(): ActiveFile | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || editor.document.uri.scheme !== 'file') {
    return undefined;
  }
  const doc = editor.document;
  return { path: doc.uri.fsPath, isAbl: doc.languageId === LANGUAGE_ID, text: doc.getText(), cursorLine: editor.selection.active.line };
}
