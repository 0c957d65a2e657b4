import { randomBytes } from 'crypto';
import * as vscode from 'vscode';

export interface PageParts {
  readonly title: string;
  /** Script and style files under `media/`, loaded from the extension itself. */
  readonly script: string;
  readonly style: string;
  readonly body: string;
}

/** The options of every webview of the extension: scripts on, files only from `media/`. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'media')] };
}

/** A page with a strict content security policy: no remote resources, only our own script
 * (carrying a fresh nonce) and style sheet. */
export function webviewPage(webview: vscode.Webview, extensionUri: vscode.Uri, parts: PageParts): string {
  const nonce = randomBytes(16).toString('base64');
  const media = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', file)).toString();
  const policy = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${parts.title}</title>
<link rel="stylesheet" href="${media(parts.style)}">
</head>
<body>
${parts.body}
<script nonce="${nonce}" src="${media(parts.script)}"></script>
</body>
</html>`;
}

/** Shows `range` of `uri` in an editor beside the webview, selected, and scrolled into view. */
export async function revealSource(uri: string, range: { start: { line: number; character: number }; end: { line: number; character: number } }): Promise<void> {
  const selection = new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
  const visible = vscode.window.visibleTextEditors.find((editor) => editor.document.uri.toString() === document.uri.toString());
  const editor = await vscode.window.showTextDocument(document, {
    viewColumn: visible?.viewColumn ?? vscode.ViewColumn.One,
    selection: new vscode.Selection(selection.start, selection.start),
    preserveFocus: false,
  });
  // Anchored at the end so the cursor (and the status bar's line) is where the range begins.
  editor.selection = new vscode.Selection(selection.end, selection.start);
  editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
