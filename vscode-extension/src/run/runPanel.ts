import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient/node';
import { TakenStep, takenSteps } from '../graph/runPath';
import { DebugSessions } from '../debug/debugSessions';
import { LANGUAGE_ID } from '../language';
import { ServerController } from '../server/controller';
import { readSettings } from '../settings';
import { revealSource, webviewOptions, webviewPage } from '../webviewPage';
import { NotEnforced, Notice, notEnforcedNotice } from './localLimits';
import { separateModelFailures, switchModel } from './modelSwitch';
import { RunActivity } from './runActivity';
import { describeEvent, EventFeed, refusalLinks, SourceLocation, TimelineEntry, TraceEvent } from './traceEvents';

interface Reply {
  readonly agent: string;
  readonly text: string;
}

interface StartResult {
  readonly runId: string;
  readonly agent: string;
  readonly greeting: Reply[];
  readonly events: TraceEvent[];
  readonly notEnforced?: NotEnforced[];
}

interface SendResult {
  readonly replies: Reply[];
  readonly activeAgent: string;
  readonly events: TraceEvent[];
  readonly ended: boolean;
}

interface ResetResult {
  readonly greeting: Reply[];
  readonly events?: TraceEvent[];
}

interface RunState {
  readonly history?: Array<{ role: string; text: string; agent?: string }>;
  readonly [field: string]: unknown;
}

/** The `abl/run/event` notification. */
export interface RunEventParams {
  readonly runId: string;
  readonly event: TraceEvent;
}

interface ChatMessage {
  readonly role: string;
  readonly agent?: string;
  readonly text: string;
}

/** What the page asks for (media/run.js posts these). */
type PageMessage =
  | { type: 'ready' }
  | { type: 'send'; text: string }
  | { type: 'reveal'; location: SourceLocation }
  | { type: 'reset' | 'save' | 'load' | 'saveTest' | 'chooseModel' };

const MODELS = [
  { label: 'embedded', detail: 'Offline and deterministic (the default)' },
  { label: 'scripted', detail: 'Replies scripted by the project' },
  { label: 'openai', detail: 'An OpenAI-compatible endpoint named by the environment' },
];
const SESSION_FILTERS = { 'ABL session': ['json'] };

/** The "ABL: Run Agent" panel: a chat with one agent through the server's `abl/run/*` requests,
 * with the trace as a timeline, the variables and the thread stack. One panel per agent.
 *
 * The extension holds the conversation (the page shows it, and gets all of it again when it
 * reloads). Trace events arrive live as `abl/run/event` notifications while a turn runs, and
 * again in the turn's answer; each one reaches the timeline once. */
export class RunPanel {
  private static readonly open = new Map<string, RunPanel>();
  /** The `abl` debug sessions: while one runs the panel's file, the panel is its customer. */
  private static debugging: DebugSessions | undefined;
  /** The debug sessions this panel sent messages to: their agents' replies show in its chat. */
  private readonly debugSessionIds = new Set<string>();
  private runId: string | undefined;
  private model = 'embedded';
  private readonly feed = new EventFeed();
  private chat: ChatMessage[] = [];
  private timeline: TimelineEntry[] = [];
  // What this run's agents declare that does not run locally: said above the chat for the whole run.
  private notice: Notice | undefined;
  private steps: TakenStep[] = [];
  private state: RunState | undefined;

  static show(extensionUri: vscode.Uri, server: ServerController, activity: RunActivity, uri: vscode.Uri, agent: string): void {
    const key = `${uri.toString()}#${agent}`;
    const existing = RunPanel.open.get(key);
    if (existing !== undefined) {
      existing.panel.reveal();
      return;
    }
    const panel = vscode.window.createWebviewPanel('abl.runAgent', `Run ${agent}`, vscode.ViewColumn.Beside, webviewOptions(extensionUri));
    RunPanel.open.set(key, new RunPanel(panel, extensionUri, server, activity, uri, agent));
    panel.onDidDispose(() => RunPanel.open.delete(key));
  }

  static useDebugSessions(sessions: DebugSessions): void {
    RunPanel.debugging = sessions;
  }

  /** Routes an `abl/run/event` to the panel of its run. Events of a run no panel knows yet (the
   * start of a run, before its answer names it) come again in that answer. */
  static receiveEvent(params: unknown): void {
    const { runId, event } = (params ?? {}) as Partial<RunEventParams>;
    if (typeof runId !== 'string' || typeof event !== 'object' || event === null) {
      return;
    }
    for (const panel of RunPanel.open.values()) {
      if (panel.runId === runId) {
        panel.addEvents([event]);
      }
    }
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly server: ServerController,
    private readonly activity: RunActivity,
    private readonly uri: vscode.Uri,
    private readonly agent: string,
  ) {
    panel.webview.html = webviewPage(panel.webview, extensionUri, {
      title: `Run ${agent}`,
      script: 'run.js',
      style: 'run.css',
      body: `<div id="app" data-agent="${agent.replace(/[^\w.-]/g, '')}" data-level="${readSettings().runTraceLevel}"></div>`,
    });
    panel.webview.onDidReceiveMessage((message: PageMessage) => void this.handle(message).catch((error: unknown) => this.fail(error)));
    panel.onDidChangeViewState(() => {
      if (panel.active) {
        this.publish(); // the run in view is the one the graph highlights
      }
    });
    const replies = RunPanel.debugging?.onReply(({ session, reply }) => {
      if (this.debugSessionIds.has(session.id)) {
        const said = { role: 'agent', agent: reply.agent, text: reply.text };
        this.chat.push(said);
        this.post({ type: 'replies', replies: [said], ended: false });
      }
    });
    panel.onDidDispose(() => {
      replies?.dispose();
      void this.stopRun();
    });
  }

  private async handle(message: PageMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        // A page that loads again (the panel was hidden) is given the whole conversation.
        if (this.runId === undefined) {
          await this.startRun();
        } else {
          this.postSnapshot();
        }
        return;
      case 'send':
        return this.send(message.text);
      case 'reveal':
        return revealSource(message.location.uri, message.location.range);
      case 'reset':
        return this.reset();
      case 'save':
        return this.saveSession();
      case 'load':
        return this.loadSession();
      case 'saveTest':
        return this.saveTest();
      case 'chooseModel':
        return this.chooseModel();
    }
  }

  private async request<T>(method: string, params: object): Promise<T> {
    const client = this.server.runningClient();
    if (client === undefined) {
      throw new Error('The ABL language server is not running; start it with "ABL: Restart Language Server".');
    }
    return client.sendRequest<T>(method, params);
  }

  private async startRun(): Promise<void> {
    await saveAblDocuments(); // the run starts from the project as it is on disk and in editors
    const result = await this.request<StartResult>('abl/run/start', {
      uri: this.uri.toString(),
      agent: this.agent,
      model: this.model,
      traceLevel: 'debug', // everything: the page filters by level itself
    });
    this.runId = result.runId;
    this.notice = notEnforcedNotice(result.notEnforced);
    this.clearConversation();
    this.chat.push(...result.greeting.map((reply) => ({ role: 'agent', agent: reply.agent, text: reply.text })));
    this.addEvents(result.events, false);
    await this.refreshState(false);
    this.postSnapshot(true);
    this.publish();
  }

  private async stopRun(): Promise<void> {
    const runId = this.runId;
    this.runId = undefined;
    if (runId === undefined) {
      return;
    }
    this.activity.end(runId);
    if (this.server.runningClient() !== undefined) {
      await this.request('abl/run/stop', { runId }).catch((error: unknown) => console.warn(`abl/run/stop: ${String(error)}`));
    }
  }

  private async send(text: string): Promise<void> {
    const session = RunPanel.debugging?.sessionFor(this.uri);
    if (session !== undefined) {
      // A debug session runs this file: the message is the customer's next one there, and the
      // agent answers when the run reaches it (breakpoints and steps stop it on the way).
      this.chat.push({ role: 'user', text });
      this.debugSessionIds.add(session.id);
      await session.customRequest('customerMessage', { text });
      return;
    }
    const runId = await this.currentRun();
    this.chat.push({ role: 'user', text });
    const result = await this.request<SendResult>('abl/run/send', { runId, text });
    this.addEvents(result.events); // only those the notifications did not bring
    const outcome = separateModelFailures(result.replies, result.events);
    const replies = outcome.replies.map((reply) => ({ role: 'agent', agent: reply.agent, text: reply.text }));
    this.chat.push(...replies);
    this.post({ type: 'replies', replies, ended: result.ended });
    await this.refreshState();
    if (outcome.errors.length > 0) {
      this.fail(new Error(`The ${this.model} model failed: ${outcome.errors.join('; ')}`));
    }
  }

  private async reset(): Promise<void> {
    const runId = await this.currentRun();
    const result = await this.request<ResetResult>('abl/run/reset', { runId });
    this.clearConversation();
    this.chat.push(...result.greeting.map((reply) => ({ role: 'agent', agent: reply.agent, text: reply.text })));
    this.addEvents(result.events ?? [], false);
    await this.refreshState(false);
    this.postSnapshot();
    this.publish();
  }

  private async saveSession(): Promise<void> {
    const target = await vscode.window.showSaveDialog({ title: 'Save the session', filters: SESSION_FILTERS, defaultUri: this.besideProject(`${this.agent}.session.json`) });
    if (target !== undefined) {
      await this.request('abl/run/save', { runId: await this.currentRun(), uri: target.toString() });
    }
  }

  private async loadSession(): Promise<void> {
    const [source] = (await vscode.window.showOpenDialog({ title: 'Load a session', filters: SESSION_FILTERS, canSelectMany: false })) ?? [];
    if (source === undefined) {
      return;
    }
    const state = await this.request<RunState & { events?: TraceEvent[] }>('abl/run/load', { runId: await this.currentRun(), uri: source.toString() });
    this.clearConversation();
    this.chat = (state.history ?? []).map((m) => ({ role: m.role, agent: m.agent ?? '', text: m.text }));
    this.addEvents(state.events ?? [], false); // the saved conversation's timeline, numbered as it was
    this.state = state;
    this.postSnapshot();
    this.publish();
  }

  private async saveTest(): Promise<void> {
    if (this.chat.length === 0) {
      // No message and no greeting: such a test would check nothing (the server refuses it too).
      void vscode.window.showInformationMessage('Nothing to save as a test yet: send a message first.');
      return;
    }
    const target = await vscode.window.showSaveDialog({
      title: 'Save as a conversation test',
      filters: { 'ABL conversation test': ['yaml', 'yml', 'json'] },
      defaultUri: this.besideProject(`${this.agent.toLowerCase()}.abltest.yaml`),
    });
    if (target !== undefined) {
      await this.request('abl/run/saveTest', { runId: await this.currentRun(), uri: target.toString() });
      void vscode.window.showInformationMessage(`Saved the conversation as a test: ${vscode.workspace.asRelativePath(target)}`);
    }
  }

  private async chooseModel(): Promise<void> {
    const picked = await vscode.window.showQuickPick(MODELS, { title: 'Model for this run', placeHolder: `Now: ${this.model}` });
    if (picked === undefined || picked.label === this.model) {
      return;
    }
    await this.stopRun();
    const outcome = await switchModel(this.model, picked.label, async (model) => {
      this.model = model;
      await this.startRun(); // its snapshot names the model, and clears an earlier error
    });
    this.model = outcome.model;
    if (outcome.error !== undefined) {
      this.fail(new Error(outcome.error));
    }
  }

  private async currentRun(): Promise<string> {
    if (this.runId === undefined) {
      await this.startRun();
    }
    return this.runId as string;
  }

  /** Adds the events not shown yet to the timeline, and tells the page and the graph at once
   * (`live`), or leaves that to the snapshot that follows. */
  private addEvents(events: readonly TraceEvent[], live = true): void {
    const fresh = this.feed.accept(events);
    if (fresh.length === 0) {
      return;
    }
    const entries = fresh.map(describeEvent);
    this.timeline.push(...entries);
    this.steps.push(...takenSteps(fresh));
    if (live) {
      this.post({ type: 'events', events: entries });
      if (takenSteps(fresh).length > 0) {
        this.publish();
      }
    }
  }

  private clearConversation(): void {
    this.feed.clear();
    this.chat = [];
    this.timeline = [];
    this.steps = [];
    this.state = undefined;
  }

  private async refreshState(post = true): Promise<void> {
    this.state = await this.request<RunState>('abl/run/state', { runId: this.runId });
    if (post) {
      this.post({ type: 'state', state: this.state });
    }
  }

  /** The whole conversation, for a page that (re)loads; `fresh`: a new run, to type into. */
  private postSnapshot(fresh = false): void {
    this.post({
      type: 'snapshot',
      fresh,
      runId: this.runId,
      agent: this.agent,
      model: this.model,
      chat: this.chat,
      events: this.timeline,
      state: this.state ?? null,
      notice: this.notice ?? null,
    });
  }

  private publish(): void {
    if (this.runId !== undefined) {
      this.activity.update({ runId: this.runId, agent: this.agent, steps: [...this.steps] }, this.panel.active);
    }
  }

  private besideProject(name: string): vscode.Uri {
    return vscode.Uri.joinPath(this.uri, '..', name);
  }

  private post(message: object): void {
    void this.panel.webview.postMessage(message);
  }

  private fail(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    const links = refusalLinks(error instanceof ResponseError ? error.data : undefined);
    // With links, the first line says why; the links replace the listed paths that follow it.
    this.post({ type: 'error', message: links.length > 0 ? message.split('\n')[0] : message, links });
  }
}

async function saveAblDocuments(): Promise<void> {
  const dirty = vscode.workspace.textDocuments.filter((doc) => doc.isDirty && doc.languageId === LANGUAGE_ID);
  await Promise.all(dirty.map((doc) => doc.save()));
}
