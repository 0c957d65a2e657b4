// The way a conversation went through the handoff graph: the edges a run took, in order, read
// from its trace, and where they are in a drawn graph. Pure, so the ABL Graph view can highlight
// them and the tests can check it without VS Code.
import { Graph } from './graphLayout';

/** One move between agents, as the graph draws it (`kind` is the edge kind). */
export interface TakenStep {
  readonly kind: 'handoff' | 'return' | 'delegate' | 'escalate';
  readonly from: string;
  readonly to: string;
}

/** The graph's id of the human an `ESCALATE` reaches. */
const ESCALATION_NODE = 'escalation:human';

interface StepEvent {
  readonly type: string;
  readonly agent?: string;
  readonly [field: string]: unknown;
}

const name = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The moves of a trace, in the order of its events: each handoff, each return to a waiting
 * parent (`handoff_return_handler`, child to parent), each delegation and escalation. */
export function takenSteps(events: readonly StepEvent[]): TakenStep[] {
  const steps: TakenStep[] = [];
  for (const event of events) {
    const from = name(event.from);
    const to = name(event.to);
    if ((event.type === 'handoff' || event.type === 'handoff_return_handler' || event.type === 'delegate_start') && from && to) {
      const kind = event.type === 'handoff' ? 'handoff' : event.type === 'delegate_start' ? 'delegate' : 'return';
      steps.push({ kind, from, to });
    } else if (event.type === 'escalate' && name(event.agent)) {
      steps.push({ kind: 'escalate', from: event.agent as string, to: ESCALATION_NODE });
    }
  }
  return steps;
}

/** A drawn edge the run took, with the 1-based positions of the steps that took it. */
export interface TakenEdge {
  readonly edge: number;
  readonly order: number[];
}

/** Where the steps are in `graph`: each step on the first edge of its kind between the same two
 * nodes. A graph of several projects qualifies its ids (`folder/Agent`), which match too. Steps
 * the drawing does not hold (another project, an agent outside the scope) are skipped; the
 * numbering stays that of the whole run. */
export function takenEdges(graph: Graph, steps: readonly TakenStep[]): TakenEdge[] {
  const same = (id: string, wanted: string) => id === wanted || id.endsWith(`/${wanted}`);
  const taken = new Map<number, number[]>();
  steps.forEach((step, index) => {
    const edge = graph.edges.findIndex((e) => e.kind === step.kind && same(e.from, step.from) && same(e.to, step.to));
    if (edge >= 0) {
      taken.set(edge, [...(taken.get(edge) ?? []), index + 1]);
    }
  });
  return [...taken].map(([edge, order]) => ({ edge, order })).sort((a, b) => a.order[0] - b.order[0]);
}
