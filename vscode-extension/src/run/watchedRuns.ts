import type { TakenStep } from '../graph/runPath';

/** The run the user is watching: the agent it started from and the moves it made so far. */
export interface ActiveRun {
  readonly runId: string;
  readonly agent: string;
  readonly steps: readonly TakenStep[];
}

/**
 * Which of the open runs the ABL Graph view labels: the one whose panel the user focused last.
 * A run that moves on in a panel the user is not looking at keeps its moves for later, and does
 * not take the graph from the focused one; it is shown when no other run is.
 */
export class WatchedRuns {
  private readonly runs = new Map<string, ActiveRun>();
  /** Run ids, the most recently focused last. */
  private readonly focusOrder: string[] = [];

  get current(): ActiveRun | undefined {
    const focused = this.focusOrder[this.focusOrder.length - 1];
    if (focused !== undefined) {
      return this.runs.get(focused);
    }
    return [...this.runs.values()].pop();
  }

  /** A run's moves so far; `focused`: its panel is the one the user is looking at. Says whether
   * the run the graph labels changed or moved on. */
  update(run: ActiveRun, focused: boolean): boolean {
    const before = this.current;
    this.runs.set(run.runId, run);
    if (focused) {
      this.forget(run.runId);
      this.focusOrder.push(run.runId);
    }
    return this.current === run || this.current !== before;
  }

  /** A run ended (its panel closed, or a new run replaced it). Says whether the labelled run changed. */
  end(runId: string): boolean {
    const before = this.current;
    this.runs.delete(runId);
    this.forget(runId);
    return this.current !== before;
  }

  private forget(runId: string): void {
    const at = this.focusOrder.indexOf(runId);
    if (at >= 0) {
      this.focusOrder.splice(at, 1);
    }
  }
}
