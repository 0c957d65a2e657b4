import * as vscode from 'vscode';
import { openExampleProject } from './commands/exampleProject';
import { fixAll } from './commands/fixAll';
import { runAgent } from './commands/runAgent';
import { AblDebugAdapterFactory } from './debug/adapterFactory';
import { AblConfigurationProvider } from './debug/configurationProvider';
import { debugAgent } from './debug/debugAgent';
import { DebugSessions } from './debug/debugSessions';
import { DEBUG_TYPE } from './debug/launchConfig';
import { showHandoffsIn } from './commands/showHandoffsIn';
import { GRAPH_VIEW_ID, GraphView } from './graph/graphView';
import { LanguageConflictWatcher } from './languageConflict';
import { LANGUAGE_ID } from './language';
import { RunActivity } from './run/runActivity';
import { RunPanel } from './run/runPanel';
import { ServerController } from './server/controller';
import { onInterpreterChange } from './server/pythonExtension';
import { LAUNCH_SETTINGS } from './settings';
import { ServerStatus } from './statusBar';
import { ConversationTests } from './testing/conversationTests';
import { DocsPages, DOCS_SCHEME } from './docsLinks';

let server: ServerController | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('ABL Language Server');
  const status = new ServerStatus('abl.showOutput');
  server = new ServerController(context.asAbsolutePath('bundled/libs'), output, status);
  const controller = server;
  const activity = new RunActivity();
  const graph = new GraphView(context.extensionUri, controller, activity);
  const tests = new ConversationTests(controller);
  const debugSessions = new DebugSessions();
  RunPanel.useDebugSessions(debugSessions);
  context.subscriptions.push(
    output,
    status,
    controller,
    activity,
    graph,
    tests,
    debugSessions,
    new LanguageConflictWatcher(context.workspaceState),
    controller.onNotification('abl/run/event', (params) => RunPanel.receiveEvent(params)),
    vscode.window.registerWebviewViewProvider(GRAPH_VIEW_ID, graph),
    vscode.workspace.registerTextDocumentContentProvider(DOCS_SCHEME, new DocsPages()),
    vscode.commands.registerCommand('abl.restartServer', () => controller.restart()),
    vscode.commands.registerCommand('abl.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('abl.runAgent', (uri?: unknown, agentName?: unknown) => runAgent(context.extensionUri, controller, activity, uri, agentName)),
    vscode.commands.registerCommand('abl.debugAgent', (uri?: unknown, agentName?: unknown) => debugAgent(uri, agentName)),
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, new AblDebugAdapterFactory(controller, output)),
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, new AblConfigurationProvider(), vscode.DebugConfigurationProviderTriggerKind.Dynamic),
    vscode.commands.registerCommand('abl.showGraph', () => GraphView.reveal()),
    vscode.commands.registerCommand('abl.showHandoffsIn', showHandoffsIn),
    vscode.commands.registerCommand('abl.fixAll', fixAll),
    vscode.commands.registerCommand('abl.openExampleProject', () => openExampleProject(context.asAbsolutePath('dist/examples'))),
    vscode.workspace.onDidChangeConfiguration((change) => {
      if (LAUNCH_SETTINGS.some((setting) => change.affectsConfiguration(setting))) {
        void controller.restart().then(() => tests.collectAll());
      }
    }),
  );
  const interpreterWatch = await onInterpreterChange(() => void controller.restart()).catch((error: unknown) => {
    output.appendLine(`Not following the Python extension's interpreter: ${String(error)}`);
    return undefined;
  });
  if (interpreterWatch !== undefined) {
    context.subscriptions.push(interpreterWatch);
  }
  startWhenNeeded(controller, context.subscriptions);
}

export function deactivate(): Promise<void> | undefined {
  return server?.stop();
}

/** Starts the server now if the workspace has ABL files, else when the first one opens: the
 * extension also activates for other languages' `.abl` files, which need no server. */
function startWhenNeeded(controller: ServerController, subscriptions: vscode.Disposable[]): void {
  const isAbl = (doc: vscode.TextDocument) => doc.languageId === LANGUAGE_ID;
  if (vscode.workspace.textDocuments.some(isAbl)) {
    void controller.start();
    return;
  }
  const waiting = vscode.workspace.onDidOpenTextDocument((doc) => {
    if (isAbl(doc)) {
      waiting.dispose();
      void controller.start();
    }
  });
  subscriptions.push(waiting);
  void vscode.workspace.findFiles('**/*.{agent,tools,behavior_profile}.abl', '**/node_modules/**', 1).then((found) => {
    if (found.length > 0) {
      waiting.dispose();
      void controller.start();
    }
  });
}
