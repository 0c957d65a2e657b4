import * as vscode from 'vscode';
import { AgentReply, agentReply, programHolds } from './customer';
import { DEBUG_TYPE } from './launchConfig';

/** The `abl` debug sessions under way, and the agent replies each one sends, so that a Run
 * Agent panel can be the customer's side of a session on its file. */
export class DebugSessions implements vscode.Disposable {
  private readonly sessions = new Map<string, vscode.DebugSession>();
  private readonly replies = new vscode.EventEmitter<{ session: vscode.DebugSession; reply: AgentReply }>();
  readonly onReply = this.replies.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor() {
    this.subscriptions = [
      this.replies,
      vscode.debug.onDidStartDebugSession((session) => {
        if (session.type === DEBUG_TYPE) {
          this.sessions.set(session.id, session);
        }
      }),
      vscode.debug.onDidTerminateDebugSession((session) => this.sessions.delete(session.id)),
      vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
        createDebugAdapterTracker: (session) => ({
          onDidSendMessage: (message: unknown) => {
            const reply = agentReply(message);
            if (reply !== undefined) {
              this.replies.fire({ session, reply });
            }
          },
        }),
      }),
    ];
  }

  /** The session that runs `file`: the active one if it does, else the latest. */
  sessionFor(file: vscode.Uri): vscode.DebugSession | undefined {
    const runs = (session: vscode.DebugSession) => programHolds(session.configuration.program, session.configuration.cwd, file.fsPath);
    const active = vscode.debug.activeDebugSession;
    if (active !== undefined && this.sessions.has(active.id) && runs(active)) {
      return active;
    }
    return [...this.sessions.values()].reverse().find(runs);
  }

  dispose(): void {
    this.subscriptions.forEach((subscription) => subscription.dispose());
  }
}
