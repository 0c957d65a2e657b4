import * as vscode from 'vscode';

/** The protocol's shapes, as the server's code lens sends them (plain JSON). */
interface WirePosition {
  readonly line: number;
  readonly character: number;
}
interface WireLocation {
  readonly uri: string;
  readonly range: { readonly start: WirePosition; readonly end: WirePosition };
}

/** `abl.showHandoffsIn` (the "N handoffs in" code lens): the routes that lead to an agent, in
 * the references peek view. Arguments: document URI, position of the agent's name, locations. */
export async function showHandoffsIn(uri: string, position: WirePosition, locations: readonly WireLocation[]): Promise<void> {
  await vscode.commands.executeCommand(
    'editor.action.showReferences',
    vscode.Uri.parse(uri),
    toPosition(position),
    locations.map((l) => new vscode.Location(vscode.Uri.parse(l.uri), new vscode.Range(toPosition(l.range.start), toPosition(l.range.end)))),
  );
}

function toPosition(p: WirePosition): vscode.Position {
  return new vscode.Position(p.line, p.character);
}
