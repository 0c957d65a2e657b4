import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { isDiagnosticsPage } from './diagnosticsPages';

/** The scheme of the diagnostics' documentation pages as the extension serves them: a page
 * opened from a code link in Problems is read-only (the pages are generated; an edit would be
 * lost), instead of the installed server's own file. */
export const DOCS_SCHEME = 'abl-docs';

/** The read-only form of a code link, or the link itself when it is not a catalogue page. */
export function readOnlyLink(target: vscode.Uri): vscode.Uri {
  return target.scheme === 'file' && isDiagnosticsPage(target.path) ? target.with({ scheme: DOCS_SCHEME }) : target;
}

/** Diagnostics with their code links made read-only. */
export function withReadOnlyLinks(diagnostics: readonly vscode.Diagnostic[]): vscode.Diagnostic[] {
  for (const d of diagnostics) {
    if (typeof d.code === 'object' && d.code.target instanceof vscode.Uri) {
      d.code = { value: d.code.value, target: readOnlyLink(d.code.target) };
    }
  }
  return [...diagnostics];
}

/** Serves `abl-docs:` pages from the files they name; a virtual document cannot be edited. */
export class DocsPages implements vscode.TextDocumentContentProvider {
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    if (!isDiagnosticsPage(uri.path)) {
      return `Not a page of the ABL diagnostics catalogue: ${uri.path}`;
    }
    return fs.readFile(uri.with({ scheme: 'file' }).fsPath, 'utf8').catch((error: unknown) => `Cannot read ${uri.path}: ${String(error)}`);
  }
}
