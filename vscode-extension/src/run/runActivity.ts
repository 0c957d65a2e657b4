import * as vscode from 'vscode';
import { TakenStep } from '../graph/runPath';

/** The run the user is watching: the agent it started from and the moves it made so far. */
export interface ActiveRun {
  readonly runId: string;
  readonly agent: string;
  readonly steps: readonly TakenStep[];
}

/** Tells the ABL Graph view which run to highlight: the Run Agent panel that last had news (a
 * new event, or the user looking at it). `undefined`: no run is open. */
export class RunActivity implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ActiveRun | undefined>();
  private readonly runs = new Map<string, ActiveRun>();
  private latest: string | undefined;

  readonly onDidChange = this.changed.event;

  get current(): ActiveRun | undefined {
    return this.latest !== undefined ? this.runs.get(this.latest) : undefined;
  }

  /** A panel's run moved on (or came into view): it becomes the one shown. */
  update(run: ActiveRun): void {
    this.runs.set(run.runId, run);
    this.latest = run.runId;
    this.changed.fire(run);
  }

  /** A run ended (its panel closed, or a new run replaced it). */
  end(runId: string): void {
    this.runs.delete(runId);
    if (this.latest === runId) {
      this.latest = [...this.runs.keys()].pop();
      this.changed.fire(this.current);
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
