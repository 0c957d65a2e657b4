import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { agentHeaders, AgentKind, looksLikeAgentBlueprint } from '../agentHeaders';
import { LANGUAGE_ID } from '../language';
import { openSetting } from '../server/ablCommand';
import { RunActivity } from '../run/runActivity';
import { RunPanel } from '../run/runPanel';
import { ServerController } from '../server/controller';
import { readSettings } from '../settings';

export interface AgentTarget {
  readonly name: string;
  readonly kind: AgentKind;
  readonly uri: vscode.Uri;
}

const ABL_FILES = '**/*.abl';
const SKIPPED_FOLDERS = '**/{node_modules,.git,.venv}/**';
// Files that mark a project's folder, as `abl check` and the server group them.
const PROJECT_MARKERS = ['project.json', 'abl.lock'];

/** `abl.runAgent`: from a code lens (document URI and agent name), the editor title or the
 * palette (pick one), open the Run Agent panel: a chat with the agent and its live trace. Only
 * when the language server is not running does `abl run PROJECT --agent NAME` run in a terminal. */
export async function runAgent(extensionUri: vscode.Uri, server: ServerController, activity: RunActivity, uri?: unknown, agentName?: unknown): Promise<void> {
  const target =
    typeof uri === 'string' && typeof agentName === 'string'
      ? { name: agentName, kind: 'agent' as const, uri: vscode.Uri.parse(uri) }
      : await pickAgent();
  if (target === undefined) {
    return;
  }
  if (server.runningClient() !== undefined) {
    RunPanel.show(extensionUri, server, activity, target.uri, target.name);
    return;
  }
  await runInTerminal(server, target);
}

async function runInTerminal(server: ServerController, target: AgentTarget): Promise<void> {
  const abl = await server.ablCommand();
  if ('message' in abl) {
    const choice = await vscode.window.showErrorMessage(abl.message, `Open ${abl.setting}`);
    if (choice !== undefined) {
      await openSetting(abl.setting);
    }
    return;
  }
  await saveAblDocuments(); // `abl run` reads the files from disk
  const project = projectOf(target.uri);
  const terminal = vscode.window.createTerminal({
    name: `ABL: ${target.name}`,
    shellPath: abl.executable,
    shellArgs: [...abl.args, 'run', project, '--agent', target.name, '--trace', readSettings().runTraceLevel],
    cwd: fs.statSync(project).isDirectory() ? project : path.dirname(project),
    env: abl.env,
    iconPath: new vscode.ThemeIcon('play'),
  });
  terminal.show();
}

async function pickAgent(): Promise<AgentTarget | undefined> {
  const agents = await workspaceAgents();
  if (agents.length === 0) {
    void vscode.window.showInformationMessage('There are no agents or supervisors in the *.abl files of this workspace.');
    return undefined;
  }
  const active = vscode.window.activeTextEditor?.document.uri.toString();
  const rank = (a: AgentTarget) => (a.uri.toString() === active ? 0 : 2) + (a.kind === 'supervisor' ? 0 : 1);
  agents.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
  const picked = await vscode.window.showQuickPick(
    agents.map((agent) => ({
      label: agent.name,
      description: agent.kind,
      detail: vscode.workspace.asRelativePath(agent.uri),
      agent,
    })),
    { title: 'Run Agent', placeHolder: 'The agent to chat with', matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.agent;
}

/** Agents declared in the workspace's ABL files, as the editor has them (unsaved text included). */
export async function workspaceAgents(): Promise<AgentTarget[]> {
  const open = new Map(vscode.workspace.textDocuments.map((doc) => [doc.uri.toString(), doc]));
  const files = await vscode.workspace.findFiles(ABL_FILES, SKIPPED_FOLDERS);
  const agents: AgentTarget[] = [];
  for (const uri of files) {
    const text = open.get(uri.toString())?.getText() ?? Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
    if (!looksLikeAgentBlueprint(text)) {
      continue; // another language's .abl file
    }
    agents.push(...agentHeaders(text).map(({ name, kind }) => ({ name, kind, uri })));
  }
  return agents;
}

/** The folder `abl run` loads: the nearest one with a project marker, else the workspace folder,
 * else the file itself. */
function projectOf(file: vscode.Uri): string {
  const workspaceFolder = vscode.workspace.getWorkspaceFolder(file)?.uri.fsPath;
  let folder = path.dirname(file.fsPath);
  for (;;) {
    if (PROJECT_MARKERS.some((marker) => fs.existsSync(path.join(folder, marker)))) {
      return folder;
    }
    const parent = path.dirname(folder);
    if (folder === workspaceFolder || parent === folder) {
      return workspaceFolder ?? file.fsPath;
    }
    folder = parent;
  }
}

async function saveAblDocuments(): Promise<void> {
  const dirty = vscode.workspace.textDocuments.filter((doc) => doc.isDirty && doc.languageId === LANGUAGE_ID);
  await Promise.all(dirty.map((doc) => doc.save()));
}
