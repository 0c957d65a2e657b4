import * as vscode from 'vscode';
import { LANGUAGE_ID } from '../language';

/** The server's code action that applies every safe fix in a file. */
export const FIX_ALL_KIND = vscode.CodeActionKind.SourceFixAll.append('abl');

/** `abl.fixAll`: applies the server's `source.fixAll.abl` action to the active file. */
export async function fixAll(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || editor.document.languageId !== LANGUAGE_ID) {
    void vscode.window.showInformationMessage('ABL: Fix All works on an open ABL file.');
    return;
  }
  const actions = await fixAllActions(editor.document);
  const fix = actions.find((action) => action.kind !== undefined && FIX_ALL_KIND.contains(action.kind));
  if (fix === undefined || (fix.edit === undefined && fix.command === undefined)) {
    void vscode.window.showInformationMessage('ABL: nothing in this file has a safe fix.');
    return;
  }
  if (fix.edit !== undefined) {
    await vscode.workspace.applyEdit(fix.edit);
  }
  if (fix.command !== undefined) {
    await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments ?? []));
  }
}

/** How many times the server is asked when VS Code cancels the request under it. */
const ATTEMPTS = 3;

async function fixAllActions(document: vscode.TextDocument): Promise<vscode.CodeAction[]> {
  for (let attempt = 1; ; attempt++) {
    const whole = new vscode.Range(0, 0, document.lineCount, 0);
    try {
      return (
        (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', document.uri, whole, FIX_ALL_KIND.value)) ??
        []
      );
    } catch (error) {
      // VS Code cancels the request when the file changes under it (just opened, re-read after a
      // language switch, still being typed in): ask again rather than fail the command.
      if (!isCancellation(error) || attempt === ATTEMPTS) {
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

function isCancellation(error: unknown): boolean {
  return error instanceof vscode.CancellationError || (error instanceof Error && (error.name === 'Canceled' || error.message === 'Canceled'));
}
