import * as vscode from 'vscode';
import {
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  TransportKind,
  WorkDoneProgressBegin,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from 'vscode-languageclient/node';
import { LANGUAGE_ID } from '../language';
import { readSettings } from '../settings';
import { ServerStatus } from '../statusBar';
import { AblCommand, LaunchProblem, openSetting, resolveAblCommand } from './ablCommand';
import { withReadOnlyLinks } from '../docsLinks';
import { AblLanguageClient, CLIENT_COMMANDS } from './client';

/** Starts, stops and restarts the language server, and keeps the status bar in step with it. */
export class ServerController implements vscode.Disposable {
  private client: AblLanguageClient | undefined;
  private command: AblCommand | undefined;
  /** Serialises start, stop and restart, so a restart never races a start. */
  private queue: Promise<void> = Promise.resolve();
  private readonly problemsShown = new Set<string>();
  /** Set from the moment a restart is asked for until the new client exists. */
  private restarting = false;
  /** Server notifications the extension listens to, registered again on each new client. */
  private readonly notificationHandlers: Array<{ method: string; handler: (params: unknown) => void }> = [];
  private readonly started = new vscode.EventEmitter<void>();
  /** A server started (also after a restart): views that asked too early can ask again. */
  readonly onDidStart = this.started.event;

  constructor(
    private readonly bundledLibs: string,
    private readonly output: vscode.OutputChannel,
    private readonly status: ServerStatus,
  ) {}

  /** How `abl` runs for the server: the same command runs agents in a terminal. */
  async ablCommand(): Promise<AblCommand | LaunchProblem> {
    if (this.command !== undefined) {
      return this.command;
    }
    const resolution = await resolveAblCommand(readSettings(), this.bundledLibs);
    return 'command' in resolution ? resolution.command : resolution.problem;
  }

  /** The client while the server runs (requests go through it), else undefined. */
  runningClient(): AblLanguageClient | undefined {
    return this.client?.state === State.Running ? this.client : undefined;
  }

  /** Listens to a server notification, on this client and on every client after a restart. */
  onNotification(method: string, handler: (params: unknown) => void): vscode.Disposable {
    const entry = { method, handler };
    this.notificationHandlers.push(entry);
    const current = this.runningClient()?.onNotification(method, handler);
    return new vscode.Disposable(() => {
      current?.dispose();
      this.notificationHandlers.splice(this.notificationHandlers.indexOf(entry), 1);
    });
  }

  start(): Promise<void> {
    return this.enqueue(() => this.doStart());
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.doStop());
  }

  restart(): Promise<void> {
    this.restarting = true;
    return this.enqueue(async () => {
      await this.doStop();
      await this.doStart();
    });
  }

  dispose(): void {
    this.started.dispose();
    void this.stop();
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(step, step);
    return this.queue;
  }

  private async doStart(): Promise<void> {
    if (this.client !== undefined) {
      return;
    }
    this.status.starting();
    const resolution = await resolveAblCommand(readSettings(), this.bundledLibs);
    if ('problem' in resolution) {
      this.command = undefined;
      this.restarting = false;
      this.report(resolution.problem);
      return;
    }
    const command = resolution.command;
    this.command = command;
    this.restarting = false;
    this.output.appendLine(`Starting ${command.description}`);
    const client = new AblLanguageClient('abl', 'ABL Language Server', serverOptions(command), this.clientOptions());
    client.onDidChangeState(({ newState }) => {
      if (newState === State.Running) {
        this.status.ready(command.description);
      } else if (newState === State.Stopped && this.client === client) {
        this.status.failed('the server stopped; see its output.');
      }
    });
    this.client = client;
    try {
      await client.start();
      for (const { method, handler } of this.notificationHandlers) {
        client.onNotification(method, handler);
      }
      this.started.fire();
    } catch (error) {
      this.client = undefined;
      const reason = error instanceof Error ? error.message : String(error);
      this.output.appendLine(`The language server did not start: ${reason}`);
      this.status.failed(reason);
    }
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined; // first, so its Stopped state is not reported as a failure
    this.command = undefined;
    if (client === undefined) {
      return;
    }
    try {
      await client.stop();
    } catch (error) {
      // A server that already exited cannot answer `shutdown`; nothing is left to stop.
      this.output.appendLine(`Stopping the language server: ${error instanceof Error ? error.message : String(error)}`);
    }
    await client.dispose().catch((error: unknown) => this.output.appendLine(`Disposing the client: ${String(error)}`));
    this.status.stopped();
  }

  private clientOptions(): LanguageClientOptions {
    return {
      documentSelector: [{ scheme: 'file', language: LANGUAGE_ID }],
      // The server reads the `abl` section itself (workspace/configuration) and is told when it
      // changes, so settings apply without a restart.
      synchronize: { configurationSection: 'abl' },
      initializationOptions: { clientCommands: [...CLIENT_COMMANDS] },
      outputChannel: this.output,
      // Failures are logged there and turn the status bar item red; a toast for each request
      // that fails while the server restarts would only be noise.
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationFailedHandler: () => false,
      middleware: {
        handleDiagnostics: (uri, diagnostics, next) => next(uri, withReadOnlyLinks(diagnostics)),
        provideDiagnostics: async (document, previousResultId, token, next) => {
          const report = await next(document, previousResultId, token);
          if (report !== undefined && report !== null && 'items' in report) {
            withReadOnlyLinks(report.items);
          }
          return report;
        },
        handleWorkDoneProgress: (token, params, next) => {
          this.onProgress(params);
          next(token, params);
        },
        workspace: {
          // A change of abl.interpreter or abl.server.path restarts the server (our listener runs
          // first, having been registered first); telling the stopping one would only fail.
          didChangeConfiguration: (sections, next) => (this.restarting ? Promise.resolve() : next(sections)),
        },
      },
    };
  }

  private onProgress(params: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd): void {
    if (params.kind === 'end') {
      if (this.command !== undefined) {
        this.status.ready(this.command.description);
      }
    } else {
      this.status.indexing(params.message, params.percentage);
    }
  }

  /** Says what is wrong in the status bar and the output, and once per problem in a notification. */
  private report(problem: LaunchProblem): void {
    this.output.appendLine(problem.message);
    this.status.failed(problem.message);
    if (this.problemsShown.has(problem.message)) {
      return;
    }
    this.problemsShown.add(problem.message);
    const openSettings = `Open ${problem.setting}`;
    const download = 'Download Python';
    const actions = problem.offerPythonDownload ? [openSettings, download] : [openSettings];
    void vscode.window.showErrorMessage(problem.message, ...actions).then((choice) => {
      if (choice === openSettings) {
        void openSetting(problem.setting);
      } else if (choice === download) {
        void vscode.env.openExternal(vscode.Uri.parse('https://www.python.org/downloads/'));
      }
    });
  }
}

function serverOptions(command: AblCommand): ServerOptions {
  return {
    command: command.executable,
    args: [...command.args, 'lsp'],
    transport: TransportKind.stdio,
    options: { env: { ...process.env, ...command.env } },
  };
}
