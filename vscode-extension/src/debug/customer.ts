/** The customer's side of a debug session, without VS Code: which session a Run Agent panel
 * talks through, and the agent replies in what the adapter sends. */
import * as path from 'path';

export interface AgentReply {
  readonly agent: string;
  readonly text: string;
}

/** Whether a session launched with `program` (relative to `cwd`) runs the file `file`: the
 * program is that file, or a folder that holds it. */
export function programHolds(program: unknown, cwd: unknown, file: string): boolean {
  if (typeof program !== 'string' || program.trim() === '') {
    return false;
  }
  const base = typeof cwd === 'string' && cwd ? cwd : undefined;
  if (!path.isAbsolute(program) && base === undefined) {
    return false;
  }
  const launched = path.resolve(base ?? '', program);
  const relative = path.relative(launched, path.resolve(file));
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

// `abl dap` writes each agent reply as one `stdout` output: `[Agent_Name] text`.
const REPLY = /^\[([A-Za-z][A-Za-z0-9_]*)\] ([\s\S]*?)\n?$/;

/** The agent reply an adapter message carries, if it is one. */
export function agentReply(message: unknown): AgentReply | undefined {
  const event = message as { type?: unknown; event?: unknown; body?: { category?: unknown; output?: unknown } } | null;
  if (event === null || typeof event !== 'object' || event.type !== 'event' || event.event !== 'output') {
    return undefined;
  }
  const body = event.body;
  if (body === undefined || body.category !== 'stdout' || typeof body.output !== 'string') {
    return undefined;
  }
  const match = REPLY.exec(body.output);
  return match === null ? undefined : { agent: match[1], text: match[2] };
}
