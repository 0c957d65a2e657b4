import * as vscode from 'vscode';

/** The server's state in the status bar: starting, indexing (with progress), ready or failed.
 * Clicking it shows the server's output. */
export class ServerStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('abl.server', vscode.StatusBarAlignment.Left, 10);

  constructor(showOutputCommand: string) {
    this.item.name = 'ABL Language Server';
    this.item.command = showOutputCommand;
  }

  starting(): void {
    this.show('$(sync~spin) ABL', 'starting', 'Starting the ABL language server…');
  }

  indexing(message: string | undefined, percentage: number | undefined): void {
    const done = percentage === undefined ? '' : ` ${Math.round(percentage)}%`;
    this.show(`$(sync~spin) ABL: indexing${done}`, 'indexing', `Reading the workspace's ABL files${message ? `: ${message}` : ''}`);
  }

  ready(detail: string): void {
    this.show('$(check) ABL', 'ready', `The ABL language server is running: ${detail}.`);
  }

  failed(reason: string): void {
    this.show('$(error) ABL', 'error', `The ABL language server is not running: ${reason}`);
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
  }

  stopped(): void {
    this.show('$(circle-slash) ABL', 'stopped', 'The ABL language server is stopped.');
  }

  dispose(): void {
    this.item.dispose();
  }

  private show(text: string, state: string, tooltip: string): void {
    this.item.text = text;
    this.item.tooltip = `${tooltip}\n\nClick to show the server's output.`;
    this.item.accessibilityInformation = { label: `ABL language server: ${state}` };
    this.item.backgroundColor = undefined;
    this.item.show();
  }
}
