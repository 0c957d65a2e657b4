/** The agents a file declares, read from its column-0 headers (`AGENT: Name`, `SUPERVISOR: Name`),
 * without the language server: ABL: Run Agent… must work even when the server cannot start. */

export type AgentKind = 'agent' | 'supervisor';

export interface AgentHeader {
  readonly name: string;
  readonly kind: AgentKind;
  /** 0-based line of the header. */
  readonly line: number;
}

// A header is a column-0 `AGENT:` or `SUPERVISOR:` key (any case) followed by a name; names
// start with a letter and use letters, digits and `_`. A byte-order mark may precede the first.
const HEADER = /^\ufeff?(AGENT|SUPERVISOR)[ \t]*:[ \t]*([A-Za-z][A-Za-z0-9_]*)[ \t]*(?:#.*)?$/i;

export function agentHeaders(text: string): AgentHeader[] {
  const found: AgentHeader[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const match = HEADER.exec(line);
    if (match) {
      found.push({ name: match[2], kind: match[1].toUpperCase() === 'SUPERVISOR' ? 'supervisor' : 'agent', line: index });
    }
  });
  return found;
}

/** Whether text reads as an Agent Blueprint document: its first line that is not blank or a
 * comment opens one (`AGENT:`, `SUPERVISOR:`, `TOOLS:`, `BEHAVIOR_PROFILE:`). Used to tell our
 * files from another language's `.abl` files. */
export function looksLikeAgentBlueprint(text: string): boolean {
  for (const line of text.split(/\r?\n/, 200)) {
    const content = line.replace(/^\ufeff/, '').trim();
    if (content === '' || content.startsWith('#')) {
      continue;
    }
    return /^(AGENT|SUPERVISOR|TOOLS|BEHAVIOR_PROFILE)[ \t]*:/.test(content);
  }
  return false;
}

/** The agent whose block holds 0-based `line`: the last header at or above it. */
export function agentAt(text: string, line: number): AgentHeader | undefined {
  return agentHeaders(text).filter((header) => header.line <= line).pop();
}
