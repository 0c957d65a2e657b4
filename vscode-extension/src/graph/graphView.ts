import * as vscode from 'vscode';
import { agentAt } from '../agentHeaders';
import { LANGUAGE_ID } from '../language';
import { ActiveRun, RunActivity } from '../run/runActivity';
import { ServerController } from '../server/controller';
import { revealSource, webviewOptions, webviewPage } from '../webviewPage';
import { Graph, layoutGraph, sameEdge } from './graphLayout';
import { TakenEdge, takenEdges } from './runPath';

/** The view's id, as contributed in package.json (its container sits in the panel). */
export const GRAPH_VIEW_ID = 'abl.graphView';

/** Which graph to ask for: the project of the active ABL file, narrowed to the agent at the
 * cursor; the whole workspace when asked for, or before any ABL file was active. */
interface GraphScope {
  readonly uri?: string;
  readonly agent?: string;
}

type PageMessage = { type: 'ready' } | { type: 'reveal'; kind: 'node' | 'edge'; index: number } | { type: 'wholeWorkspace' };

/** The ABL Graph view: the handoff graph (`abl/graph`) of the active agent's project, drawn in a
 * webview view. It follows the agent at the cursor, redraws when the server says the graph
 * changed (`abl/graphChanged`, which comes as you type), shows the source of a node or edge on
 * click, and numbers the edges the watched run took (`RunActivity`). */
export class GraphView implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private scope: GraphScope = {};
  /** The scope of the drawing on the page: a new one is fitted to the view, the same one keeps
   * the user's zoom and pan when it is redrawn. */
  private drawnScope: string | undefined;
  private graph: Graph | undefined;
  /** Answers to older requests are dropped: only the latest scope is drawn. */
  private requestNumber = 0;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly server: ServerController,
    private readonly activity: RunActivity,
  ) {
    this.scope = scopeOf(vscode.window.activeTextEditor) ?? {};
    this.subscriptions.push(
      server.onNotification('abl/graphChanged', () => void this.refresh()),
      server.onDidStart(() => void this.refresh()), // a view shown before the server was up
      vscode.window.onDidChangeActiveTextEditor((editor) => this.follow(editor)),
      vscode.window.onDidChangeTextEditorSelection((change) => this.follow(change.textEditor)),
      activity.onDidChange((run) => this.postTaken(run)),
    );
  }

  /** Opens the view (the `abl.showGraph` command). */
  static async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${GRAPH_VIEW_ID}.focus`);
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.drawnScope = undefined;
    view.webview.options = webviewOptions(this.extensionUri);
    view.webview.html = webviewPage(view.webview, this.extensionUri, {
      title: 'ABL Graph',
      script: 'graph.js',
      style: 'graph.css',
      body: '<div id="app"></div>',
    });
    const listening = [
      view.webview.onDidReceiveMessage((message: PageMessage) => void this.handle(message).catch((error: unknown) => this.fail(error))),
      view.onDidChangeVisibility(() => {
        if (view.visible) {
          // The graph may have changed while hidden, and the cursor moved.
          this.follow(vscode.window.activeTextEditor, false);
          void this.refresh();
        }
      }),
    ];
    view.onDidDispose(() => {
      listening.forEach((subscription) => subscription.dispose());
      if (this.view === view) {
        this.view = undefined;
      }
    });
  }

  dispose(): void {
    this.subscriptions.forEach((subscription) => subscription.dispose());
  }

  /** Redraws for the agent at the cursor, when it is another one than drawn. Other editors
   * (output, a webview's focus) keep the current drawing. A hidden view does nothing: it looks
   * at the cursor when it is shown again. */
  private follow(editor: vscode.TextEditor | undefined, redraw = true): void {
    if (!this.view?.visible) {
      return;
    }
    const scope = scopeOf(editor);
    if (scope !== undefined && (scope.uri !== this.scope.uri || scope.agent !== this.scope.agent)) {
      this.scope = scope;
      if (redraw) {
        void this.refresh();
      }
    }
  }

  private async handle(message: PageMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.drawnScope = undefined; // a fresh page: fit the first drawing
        this.follow(vscode.window.activeTextEditor, false);
        return this.refresh();
      case 'wholeWorkspace':
        this.scope = {};
        return this.refresh();
      case 'reveal':
        return this.reveal(message.kind, message.index);
    }
  }

  /** Shows a node's or an edge's source. Positions move as the file is edited without the graph
   * changing (`abl/graphChanged` ignores them), so they are asked for again first. */
  private async reveal(kind: 'node' | 'edge', index: number): Promise<void> {
    const drawn = this.graph;
    if (drawn === undefined) {
      return;
    }
    const fresh = await this.request().catch(() => undefined);
    let target: { readonly uri: string | null; readonly range: unknown } | undefined;
    if (kind === 'node') {
      const node = drawn.nodes[index];
      target = fresh?.nodes.find((n) => n.id === node?.id) ?? node;
    } else {
      target = (fresh && sameEdge(fresh, drawn, index)) ?? drawn.edges[index];
    }
    if (target?.uri && target.range) {
      await revealSource(target.uri, target.range as Parameters<typeof revealSource>[1]);
    }
  }

  private request(): Promise<Graph> {
    const client = this.server.runningClient();
    if (client === undefined) {
      return Promise.reject(new Error('The ABL language server is not running.'));
    }
    return client.sendRequest<Graph>('abl/graph', this.scope);
  }

  private async refresh(): Promise<void> {
    if (this.view === undefined || !this.view.visible) {
      return; // drawn when it is shown
    }
    const number = ++this.requestNumber;
    try {
      const graph = await this.request();
      if (number !== this.requestNumber) {
        return;
      }
      this.graph = graph;
      const scope = describeScope(this.scope);
      const fit = scope !== this.drawnScope;
      this.drawnScope = scope;
      this.post({ type: 'graph', scope, fit, layout: layoutGraph(graph), graph, taken: this.taken(this.activity.current) });
    } catch (error) {
      this.fail(error);
    }
  }

  private taken(run: ActiveRun | undefined): { run: string; edges: TakenEdge[] } | null {
    if (run === undefined || this.graph === undefined) {
      return null;
    }
    return { run: run.agent, edges: takenEdges(this.graph, run.steps) };
  }

  private postTaken(run: ActiveRun | undefined): void {
    if (this.view?.visible) {
      this.post({ type: 'taken', taken: this.taken(run) });
    }
  }

  private post(message: object): void {
    void this.view?.webview.postMessage(message);
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
