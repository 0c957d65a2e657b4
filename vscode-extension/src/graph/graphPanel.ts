import * as vscode from 'vscode';
import { agentAt } from '../agentHeaders';
import { LANGUAGE_ID } from '../language';
import { ServerController } from '../server/controller';
import { revealSource, webviewOptions, webviewPage } from '../webviewPage';
import { Graph, layoutGraph } from './graphLayout';

/** Which graph to ask for: the project of the active ABL file, narrowed to the agent at the
 * cursor; the whole workspace when no ABL file is active. */
interface GraphScope {
  readonly uri?: string;
  readonly agent?: string;
}

type PageMessage = { type: 'ready' } | { type: 'reveal'; kind: 'node' | 'edge'; index: number } | { type: 'wholeWorkspace' };

/** "ABL: Show Handoff Graph": the handoff graph (`abl/graph`) drawn in a panel that follows the
 * active agent and redraws when the server says the graph changed (`abl/graphChanged`). */
export class GraphPanel implements vscode.Disposable {
  private static current: GraphPanel | undefined;
  private scope: GraphScope = {};
  private graph: Graph | undefined;
  /** Answers to older requests are dropped: only the latest scope is drawn. */
  private requestNumber = 0;
  private readonly subscriptions: vscode.Disposable[] = [];

  static show(extensionUri: vscode.Uri, server: ServerController): void {
    if (GraphPanel.current !== undefined) {
      GraphPanel.current.panel.reveal(undefined, true);
      return;
    }
    const panel = vscode.window.createWebviewPanel('abl.graph', 'ABL Graph', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, webviewOptions(extensionUri));
    GraphPanel.current = new GraphPanel(panel, extensionUri, server);
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly server: ServerController,
  ) {
    panel.webview.html = webviewPage(panel.webview, extensionUri, {
      title: 'ABL Graph',
      script: 'graph.js',
      style: 'graph.css',
      body: '<div id="app"></div>',
    });
    this.scope = scopeOf(vscode.window.activeTextEditor) ?? {};
    this.subscriptions.push(
      panel.webview.onDidReceiveMessage((message: PageMessage) => void this.handle(message).catch((error: unknown) => this.fail(error))),
      server.onNotification('abl/graphChanged', () => void this.refresh()),
      vscode.window.onDidChangeActiveTextEditor((editor) => this.follow(editor)),
      vscode.window.onDidChangeTextEditorSelection((change) => this.follow(change.textEditor)),
      panel.onDidChangeViewState(() => {
        if (panel.visible) {
          void this.refresh(); // positions may have moved while hidden
        }
      }),
    );
    panel.onDidDispose(() => this.dispose());
  }

  dispose(): void {
    GraphPanel.current = undefined;
    this.subscriptions.forEach((subscription) => subscription.dispose());
  }

  /** Redraws for the agent at the cursor, when it is another one than drawn. Other editors
   * (output, the panel's own focus) keep the current drawing. */
  private follow(editor: vscode.TextEditor | undefined): void {
    const scope = scopeOf(editor);
    if (scope !== undefined && (scope.uri !== this.scope.uri || scope.agent !== this.scope.agent)) {
      this.scope = scope;
      void this.refresh();
    }
  }

  private async handle(message: PageMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        return this.refresh();
      case 'wholeWorkspace':
        this.scope = {};
        return this.refresh();
      case 'reveal': {
        const item = message.kind === 'node' ? this.graph?.nodes[message.index] : this.graph?.edges[message.index];
        if (item?.uri && item.range) {
          await revealSource(item.uri, item.range as Parameters<typeof revealSource>[1]);
        }
        return;
      }
    }
  }

  private async refresh(): Promise<void> {
    const client = this.server.runningClient();
    if (client === undefined) {
      this.post({ type: 'error', message: 'The ABL language server is not running.' });
      return;
    }
    const number = ++this.requestNumber;
    try {
      const graph = await client.sendRequest<Graph>('abl/graph', this.scope);
      if (number !== this.requestNumber) {
        return;
      }
      this.graph = graph;
      this.post({ type: 'graph', scope: describeScope(this.scope), layout: layoutGraph(graph), graph });
    } catch (error) {
      this.fail(error);
    }
  }

  private post(message: object): void {
    void this.panel.webview.postMessage(message);
  }

  private fail(error: unknown): void {
    this.post({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  }
}

function scopeOf(editor: vscode.TextEditor | undefined): GraphScope | undefined {
  if (editor === undefined || editor.document.languageId !== LANGUAGE_ID || editor.document.uri.scheme !== 'file') {
    return undefined;
  }
  const agent = agentAt(editor.document.getText(), editor.selection.active.line);
  return { uri: editor.document.uri.toString(), agent: agent?.name };
}

function describeScope(scope: GraphScope): string {
  if (scope.uri === undefined) {
    return 'Whole workspace';
  }
  const file = vscode.workspace.asRelativePath(vscode.Uri.parse(scope.uri));
  return scope.agent === undefined ? file : `Around ${scope.agent} (${file})`;
}
