// Choosing another model for a run, and telling a model's failure from the agent's words: pure,
// so that the unit tests hold the rules the Run Agent panel follows.

/** Where a model switch ended: the model the run now uses, and why not the one asked for. */
export interface ModelSwitch {
  readonly model: string;
  readonly error?: string;
}

/**
 * Starts the run again with `wanted`. When it cannot start (no endpoint configured for
 * `openai`, ...), the run starts again with `current`, so that the conversation goes on and
 * the panel names the model really in use, and the reason is given once. A failure to start
 * with `current` too is the caller's to show.
 */
export async function switchModel(current: string, wanted: string, start: (model: string) => Promise<void>): Promise<ModelSwitch> {
  try {
    await start(wanted);
    return { model: wanted };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    await start(current);
    return { model: current, error: `The ${wanted} model cannot be used: ${reason.trim()} The run goes on with ${current}.` };
  }
}

interface Reply {
  readonly agent: string;
  readonly text: string;
}

interface Event {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** The runtime's reply for a failed model call, written for clients that show only replies. */
const FAILURE_NOTICE = '[error] ';

/**
 * A model that fails in a turn gives an `error` event (code `model_error`, with its message)
 * and a reply beginning "[error] " for clients that show only replies. The panel shows the
 * failure as an error, not as something the agent said: the replies without those notices, and
 * the failures' messages.
 */
export function separateModelFailures(replies: readonly Reply[], events: readonly Event[]): { replies: Reply[]; errors: string[] } {
  const errors = events.filter((event) => event.type === 'error' && event.code === 'model_error').map((event) => String(event.message ?? 'the model did not answer'));
  if (errors.length === 0) {
    return { replies: [...replies], errors };
  }
  return { replies: replies.filter((reply) => !reply.text.startsWith(FAILURE_NOTICE)), errors: [...new Set(errors)] };
}
