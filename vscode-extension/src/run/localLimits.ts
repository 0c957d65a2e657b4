// What the agents of a run declare that the local runtime does not enforce (`notEnforced` in the
// `abl/run/start` answer), as the Run Agent panel's notice shows it: one line per construct,
// naming the agent and the file and line, each leading to its source.

import { SourceLocation } from './traceEvents';

/** One `notEnforced` entry of `abl/run/start`. */
export interface NotEnforced {
  readonly construct: string;
  readonly agent: string;
  readonly instead: string;
  readonly location: SourceLocation;
}

export interface NoticeLine {
  readonly text: string;
  readonly location: SourceLocation;
}

export interface Notice {
  readonly heading: string;
  readonly lines: readonly NoticeLine[];
}

export const NOTICE_HEADING = 'The local runtime does not enforce what runs on the platform:';

/** The panel's notice, or undefined when everything the run may reach runs locally. */
export function notEnforcedNotice(items: readonly NotEnforced[] | undefined): Notice | undefined {
  if (items === undefined || items.length === 0) {
    return undefined;
  }
  const lines = items.map((item) => ({
    text: `${item.agent}: ${item.construct}: ${item.instead} (${fileName(item.location.uri)}:${item.location.range.start.line + 1})`,
    location: item.location,
  }));
  return { heading: NOTICE_HEADING, lines };
}

function fileName(uri: string): string {
  const last = uri.slice(uri.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(last);
  } catch {
    return last; // a malformed escape: shown as written
  }
}
