import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

const FOLDER_NAME = 'abl-examples';

/** `abl.openExampleProject` (the walkthrough's first step): copies the example projects shipped
 * with the extension into a folder the user picks, and opens it. */
export async function openExampleProject(examples: string): Promise<void> {
  const picked = await vscode.window.showOpenDialog({
    canSelectFiles: false,
    canSelectFolders: true,
    title: 'Where to create the ABL example projects',
    openLabel: `Create ${FOLDER_NAME} here`,
  });
  if (picked === undefined || picked.length === 0) {
    return;
  }
  const target = freeName(path.join(picked[0].fsPath, FOLDER_NAME));
  await fs.promises.cp(examples, target, { recursive: true });
  const hasFolder = (vscode.workspace.workspaceFolders?.length ?? 0) > 0;
  await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(target), { forceNewWindow: hasFolder });
}

/** `wanted`, or `wanted-2`, `wanted-3`… when it exists. */
function freeName(wanted: string): string {
  let candidate = wanted;
  for (let n = 2; fs.existsSync(candidate); n++) {
    candidate = `${wanted}-${n}`;
  }
  return candidate;
}
