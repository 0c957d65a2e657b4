import * as vscode from 'vscode';
import { ActiveRun, WatchedRuns } from './watchedRuns';

export type { ActiveRun } from './watchedRuns';

/** Tells the ABL Graph view which run to label: the Run Agent panel the user focused last
 * (`WatchedRuns` holds the rule). `undefined`: no run is open. */
export class RunActivity implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ActiveRun | undefined>();
  private readonly runs = new WatchedRuns();

  readonly onDidChange = this.changed.event;

  get current(): ActiveRun | undefined {
    return this.runs.current;
  }

  /** A panel's run moved on, or its panel came into focus (`focused`). */
  update(run: ActiveRun, focused: boolean): void {
    if (this.runs.update(run, focused)) {
      this.changed.fire(this.current);
    }
  }

  /** A run ended (its panel closed, or a new run replaced it). */
  end(runId: string): void {
    if (this.runs.end(runId)) {
      this.changed.fire(this.current);
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
