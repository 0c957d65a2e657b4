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
  const document = editor.document;
  const whole = new vscode.Range(0, 0, document.lineCount, 0);
  const actions =
    (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', document.uri, whole, FIX_ALL_KIND.value)) ?? [];
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
