import * as path from 'path';
import * as vscode from 'vscode';
import { looksLikeAgentBlueprint } from './agentHeaders';
import { LANGUAGE_ID } from './language';

// Progress OpenEdge's ABL also uses `.abl`; when one of its extensions is installed, VS Code may
// give it our files. Only `files.associations` (a user setting) reliably wins over another
// extension's contribution, so offer to write it.
const ASKED_KEY = 'abl.languageConflict.asked';
const COMPOUND_SUFFIXES = ['.agent.abl', '.tools.abl', '.behavior_profile.abl'];

export class LanguageConflictWatcher implements vscode.Disposable {
  private readonly subscription: vscode.Disposable;
  private asking = false;

  constructor(private readonly state: vscode.Memento) {
    this.subscription = vscode.workspace.onDidOpenTextDocument((doc) => this.check(doc));
    vscode.workspace.textDocuments.forEach((doc) => this.check(doc));
  }

  dispose(): void {
    this.subscription.dispose();
  }

  private check(doc: vscode.TextDocument): void {
    if (this.asking || this.state.get<boolean>(ASKED_KEY) || !isTakenAgentBlueprint(doc)) {
      return;
    }
    this.asking = true;
    void this.ask(doc).finally(() => {
      this.asking = false;
    });
  }

  /** Says once per workspace which extension took the file, and offers the association. */
  private async ask(doc: vscode.TextDocument): Promise<void> {
    await this.state.update(ASKED_KEY, true);
    const pattern = associationPattern(doc.fileName);
    const owner = contributorOf(doc.languageId);
    const use = `Use ABL (Agent Blueprint) for ${pattern}`;
    const choice = await vscode.window.showWarningMessage(
      `${path.basename(doc.fileName)} is an Agent Blueprint file, but ${owner} opened it as language "${doc.languageId}", ` +
        `so ABL checks, completion and navigation are off for it. ` +
        `The setting files.associations {"${pattern}": "${LANGUAGE_ID}"} gives such files to ABL (Agent Blueprint).`,
      use,
      'Not Now',
    );
    if (choice === use) {
      await associate(pattern);
    }
  }
}

function isTakenAgentBlueprint(doc: vscode.TextDocument): boolean {
  return (
    doc.uri.scheme === 'file' &&
    doc.languageId !== LANGUAGE_ID &&
    doc.fileName.toLowerCase().endsWith('.abl') &&
    looksLikeAgentBlueprint(doc.getText())
  );
}

/** The narrowest pattern that covers the file: `*.agent.abl` for agent files, else `*.abl`. */
function associationPattern(fileName: string): string {
  const lower = fileName.toLowerCase();
  const suffix = COMPOUND_SUFFIXES.find((s) => lower.endsWith(s)) ?? '.abl';
  return `*${suffix}`;
}

function contributorOf(languageId: string): string {
  const owner = vscode.extensions.all.find((extension) =>
    (extension.packageJSON?.contributes?.languages ?? []).some((language: { id?: string }) => language.id === languageId),
  );
  const name = owner?.packageJSON?.displayName ?? owner?.id;
  return name ? `the "${name}" extension` : 'another extension';
}

/** Writes the association (for this workspace when one is open) and switches the open files. */
async function associate(pattern: string): Promise<void> {
  const hasWorkspace = vscode.workspace.workspaceFolders !== undefined;
  const config = vscode.workspace.getConfiguration('files');
  const inspected = config.inspect<Record<string, string>>('associations');
  const current = (hasWorkspace ? inspected?.workspaceValue : inspected?.globalValue) ?? {};
  const target = hasWorkspace ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config.update('associations', { ...current, [pattern]: LANGUAGE_ID }, target);
  const suffix = pattern.slice(1);
  for (const doc of vscode.workspace.textDocuments.filter(isTakenAgentBlueprint)) {
    if (doc.fileName.toLowerCase().endsWith(suffix)) {
      await vscode.languages.setTextDocumentLanguage(doc, LANGUAGE_ID);
    }
  }
}
