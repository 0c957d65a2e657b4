import * as vscode from 'vscode';
import { LANGUAGE_ID } from '../language';
import { activeFile } from './configurationProvider';
import { agentToDebug, configurationFor } from './launchConfig';

/** `abl.debugAgent`: from the "Debug agent" code lens (document URI and agent name), the editor
 * title (the file) or the palette (the active editor), start a debug session on the agent. The
 * customer's messages are typed in the Debug Console, or in the Run Agent panel of the session. */
export async function debugAgent(uri?: unknown, agentName?: unknown): Promise<boolean> {
  const target = await targetOf(uri, agentName);
  if (target === undefined) {
    void vscode.window.showErrorMessage('There is no ABL agent to debug: open an agent or supervisor (.abl) first.');
    return false;
  }
  const folder = vscode.workspace.getWorkspaceFolder(target.uri);
  const config = configurationFor(target.uri.fsPath, target.agent);
  if (folder !== undefined) {
    config.cwd = folder.uri.fsPath;
  }
  return vscode.debug.startDebugging(folder, config as vscode.DebugConfiguration);
}

async function targetOf(uri: unknown, agentName: unknown): Promise<{ uri: vscode.Uri; agent: string | undefined } | undefined> {
  const given = typeof uri === 'string' ? vscode.Uri.parse(uri) : uri instanceof vscode.Uri ? uri : undefined;
  if (given !== undefined && typeof agentName === 'string' && agentName) {
    return { uri: given, agent: agentName };
  }
  if (given !== undefined) {
    const active = activeFile();
    if (active !== undefined && active.path === given.fsPath) {
      return { uri: given, agent: agentToDebug(active) };
    }
    const doc = await vscode.workspace.openTextDocument(given);
    if (doc.languageId !== LANGUAGE_ID) {
      return undefined;
    }
    return { uri: given, agent: agentToDebug({ path: given.fsPath, isAbl: true, text: doc.getText(), cursorLine: 0 }) };
  }
  const active = activeFile();
  if (active === undefined || !active.isAbl) {
    return undefined;
  }
  return { uri: vscode.Uri.file(active.path), agent: agentToDebug(active) };
}
