// Pure formatting of the run trace for the Run Agent panel's timeline: one line per event with
// the fields that explain a routing decision, and the verbosity level each type is shown at
// (generated from the trace schema into traceLevels.ts).

import { LEVEL_OF_TYPE, TRACE_LEVELS } from './traceLevels';
import type { TraceLevel } from './traceLevels';

export interface Position {
  readonly line: number;
  readonly character: number;
}

export interface SourceLocation {
  readonly uri: string;
  readonly range: { readonly start: Position; readonly end: Position };
}

/** One `abl/run/event`: the envelope plus the event's own fields. */
export interface TraceEvent {
  readonly type: string;
  readonly seq: number;
  readonly turn: number;
  readonly thread: string;
  readonly agent: string;
  readonly location?: SourceLocation;
  readonly [field: string]: unknown;
}

export { TRACE_LEVELS };
export type { TraceLevel };

export function levelOf(type: string): TraceLevel {
  return LEVEL_OF_TYPE[type] ?? 'standard';
}

/** An event as the timeline shows it. */
export interface TimelineEntry {
  readonly seq: number;
  readonly type: string;
  readonly level: TraceLevel;
  readonly agent: string;
  readonly summary: string;
  /** Problems (errors, failed tools, refused effects) are drawn in the error colour. */
  readonly problem: boolean;
  readonly location?: SourceLocation;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value) ?? '');
const list = (value: unknown): string => (Array.isArray(value) && value.length > 0 ? value.map(text).join(', ') : 'none');

function historyOf(event: TraceEvent): string {
  const history = event.history as { mode?: string; count?: number | null } | undefined;
  if (history === undefined || history === null) {
    return '';
  }
  const mode = history.mode === 'last_n' && history.count != null ? `last_n ${history.count}` : String(history.mode);
  const messages = typeof event.historyMessages === 'number' ? `, ${event.historyMessages} message${event.historyMessages === 1 ? '' : 's'}` : '';
  return ` · history ${mode}${messages}`;
}

/** Which COMPLETE rule fired (numbered from 1, as written) and its condition, or the flow step. */
function completeSummary(event: TraceEvent): string {
  const rule = event.rule as { index?: number; condition?: string } | undefined;
  const what = rule && typeof rule.index === 'number' ? `rule ${rule.index + 1} · WHEN ${text(rule.condition)}` : `step ${text(event.step)}`;
  return `${what}${event.terminal === false ? ' · the conversation goes on' : ' · the agent is done'}`;
}

/** The key fields of each event type, in a few words; other types list their own fields. */
const SUMMARIES: Readonly<Record<string, (event: TraceEvent) => string>> = {
  handoff: (e) =>
    `${text(e.from)} → ${text(e.to)} · ${e.returnExpected === true ? 'returnable' : 'permanent'}${historyOf(e)}${e.handBack === true ? ' · hand-back' : ''}`,
  handoff_condition_check: (e) => `→ ${text(e.target)} · WHEN ${text(e.condition)} · ${e.result === true ? 'true' : 'false'}`,
  handoff_return_handler: (e) =>
    `${text(e.from)} → ${text(e.to)} · ${text(e.action)} · mapped ${list(e.mappedFields)}${Array.isArray(e.setFields) && e.setFields.length > 0 ? ` · set ${list(e.setFields)}` : ''}`,
  resume_intent: (e) => `replays "${text(e.message)}"${e.resumeWith !== undefined ? ` · ${text(e.resumeWith)}` : ''}`,
  handoff_completed: (e) => `→ ${text(e.to)} · ${text(e.outcome)}${e.cause ? ` · ${text(e.cause)}` : ''}`,
  gather: (e) => `${text(e.field)} = ${text(e.value)}${e.valid === false ? ' · invalid' : ''}`,
  tool_call: (e) => `${text(e.tool)}(${text(e.input)})`,
  tool_result: (e) => `${text(e.tool)} · ${e.success === false ? `failed: ${text(e.error)}` : text(e.output)}`,
  tool_call_retry: (e) => `${text(e.tool)} · attempt ${text(e.attempt)}`,
  error: (e) => `${text(e.code)}: ${text(e.message)}`,
  warning: (e) => `${text(e.code)}: ${text(e.message)}`,
  complete: completeSummary,
  escalate: (e) => `${text(e.reason)}`,
  flow_step: (e) => `${text(e.step)} · ${text(e.action)}`,
};

const ENVELOPE = new Set(['type', 'seq', 'turn', 'thread', 'agent', 'ts', 'location']);

function ownFields(event: TraceEvent): string {
  return Object.entries(event)
    .filter(([key]) => !ENVELOPE.has(key))
    .map(([key, value]) => `${key}=${text(value)}`)
    .join(' ');
}

function isProblem(event: TraceEvent): boolean {
  return (
    event.type === 'error' ||
    event.type === 'memory_error' ||
    (event.type === 'tool_result' && event.success === false) ||
    (event.type === 'handoff_completed' && event.outcome !== undefined && event.outcome !== 'success')
  );
}

/** An error the server names when it refuses a run (`data.errors` of the error answer), as a
 * link to its place: the file's name and line, then the code and message. */
export interface RefusalLink {
  readonly label: string;
  readonly location: SourceLocation;
}

export function refusalLinks(data: unknown): RefusalLink[] {
  const errors = typeof data === 'object' && data !== null ? (data as { errors?: unknown }).errors : undefined;
  if (!Array.isArray(errors)) {
    return [];
  }
  return errors
    .filter((e): e is SourceLocation & { code?: unknown; message?: unknown } => typeof e?.uri === 'string' && typeof e?.range?.start?.line === 'number')
    .map((e) => ({
      label: `${decodeURIComponent(e.uri.slice(e.uri.lastIndexOf('/') + 1))}:${e.range.start.line + 1}: ${text(e.code)} ${text(e.message)}`,
      location: { uri: e.uri, range: e.range },
    }));
}

export function describeEvent(event: TraceEvent): TimelineEntry {
  const summarise = SUMMARIES[event.type] ?? ownFields;
  return {
    seq: event.seq,
    type: event.type,
    level: levelOf(event.type),
    agent: event.agent,
    summary: summarise(event),
    problem: isProblem(event),
    location: event.location,
  };
}

/** The entries shown when the timeline's filter is at `level`: those at that level or below. */
export function visibleAt<T extends { readonly level: TraceLevel }>(entries: readonly T[], level: TraceLevel): T[] {
  const limit = TRACE_LEVELS.indexOf(level);
  return entries.filter((entry) => TRACE_LEVELS.indexOf(entry.level) <= limit);
}

/** The events of one run as they reach the extension: live, one `abl/run/event` at a time, and
 * again in the answer to the request that caused them. Each `seq` passes once. */
export class EventFeed {
  private readonly seen = new Set<number>();

  /** The events not seen before, in the order given. */
  accept(events: readonly TraceEvent[]): TraceEvent[] {
    const fresh = events.filter((event) => !this.seen.has(event.seq));
    fresh.forEach((event) => this.seen.add(event.seq));
    return fresh;
  }

  /** A new conversation numbers its events from 1 again (restart, reset, a loaded session). */
  clear(): void {
    this.seen.clear();
  }
}
