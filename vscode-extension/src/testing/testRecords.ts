// What `abl test --format json` prints (one JSON record per line; docs/conversation-tests.md),
// read as it streams, and turned into what the Testing view shows. Pure: no VS Code here.

export interface TurnEntry {
  /** 1-based line of the turn's `- user:` in the test file. */
  readonly line: number;
  readonly user: string;
}

export interface TestEntry {
  readonly name: string;
  /** 1-based line of the test's `- name:`. */
  readonly line: number;
  readonly skip: string | null;
  /** Whether the run's `-k`/`--name` chose it (a file is always listed whole). */
  readonly selected: boolean;
  readonly turns: readonly TurnEntry[];
}

export interface FileRecord {
  readonly type: 'file';
  readonly path: string;
  readonly project: string;
  readonly agent: string;
  readonly tests: readonly TestEntry[];
}

export interface FileErrorRecord {
  readonly type: 'fileError';
  readonly path: string;
  readonly line: number | null;
  readonly column: number | null;
  readonly message: string;
}

export interface StartedRecord {
  readonly type: 'started';
  readonly path: string;
  readonly name: string;
  readonly line: number;
}

export interface FailureEntry {
  readonly kind: string;
  readonly summary: string;
  readonly expected: string | null;
  readonly actual: string | null;
  readonly details: readonly string[];
  /** 1-based line of the check that failed (else of its turn, else null). */
  readonly line: number | null;
  /** The turn's number and line; null for a check made before the first message. */
  readonly turn: number | null;
  readonly turnLine: number | null;
  readonly user: string | null;
}

export interface ResultRecord {
  readonly type: 'result';
  readonly path: string;
  readonly name: string;
  readonly line: number;
  readonly status: 'passed' | 'failed' | 'skipped' | 'error';
  readonly durationMs: number;
  readonly failures: readonly FailureEntry[];
  readonly error: string | null;
  /** The text `abl test` prints for a failure (expected, actual, replies and trace). */
  readonly report: string | null;
}

export interface SummaryRecord {
  readonly type: 'summary';
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly text: string;
}

export type TestRecord = FileRecord | FileErrorRecord | StartedRecord | ResultRecord | SummaryRecord;

const RECORD_TYPES = new Set(['file', 'fileError', 'started', 'result', 'summary']);

/** Splits a stream into lines and reads each as a record; a line that is not one (a warning
 * printed by Python, say) is handed back as text rather than lost. */
export class RecordReader {
  private pending = '';

  constructor(
    private readonly onRecord: (record: TestRecord) => void,
    private readonly onOtherLine: (line: string) => void,
  ) {}

  push(chunk: string): void {
    const lines = (this.pending + chunk).split('\n');
    this.pending = lines.pop() ?? '';
    lines.forEach((line) => this.line(line));
  }

  /** The end of the stream: a last line without a newline counts too. */
  end(): void {
    if (this.pending !== '') {
      this.line(this.pending);
      this.pending = '';
    }
  }

  private line(raw: string): void {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') {
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.onOtherLine(line);
      return;
    }
    if (typeof parsed === 'object' && parsed !== null && RECORD_TYPES.has((parsed as { type?: unknown }).type as string)) {
      this.onRecord(parsed as TestRecord);
    } else {
      this.onOtherLine(line);
    }
  }
}

/** A message of a failed or broken test, placed at a 1-based line of the test file. */
export interface FailureMessage {
  readonly text: string;
  readonly line: number;
  /** Both set when the check compared two values: shown side by side. */
  readonly expected?: string;
  readonly actual?: string;
}

/** One message per failed check, at the check's line in the failing turn (the test's own line
 * for a check made before the first message, or when the test could not run at all). */
export function failureMessages(result: ResultRecord): FailureMessage[] {
  if (result.status === 'error') {
    return [{ text: result.error ?? 'the test could not run', line: result.line }];
  }
  return result.failures.map((failure) => {
    const where = failure.turn !== null ? `turn ${failure.turn} (user: ${failure.user ?? ''}): ` : '';
    const details = failure.details.length > 0 ? `\n${failure.details.join('\n')}` : '';
    const text = `${where}${failure.kind}: ${failure.summary}${details}`;
    const line = failure.line ?? failure.turnLine ?? result.line;
    return failure.expected !== null && failure.actual !== null ? { text, line, expected: failure.expected, actual: failure.actual } : { text, line };
  });
}

/** Arguments of `abl test` that run the chosen tests of some files (all of them without names).
 * `--name=` keeps a name that starts with `-` from reading as an option. */
export function testArguments(files: string | readonly string[], names?: readonly string[]): string[] {
  return ['test', '--format', 'json', ...(typeof files === 'string' ? [files] : files), ...(names ?? []).map((testName) => `--name=${testName}`)];
}

/** The `abl test` processes of a run: every file run whole in one process (one start of Python,
 * one load of each project), and each file with chosen tests in one of its own (`--name` would
 * otherwise choose tests of that name in the other files too). */
export function runGroups<F>(chosen: ReadonlyMap<F, readonly string[] | undefined>): { files: F[]; names?: readonly string[] }[] {
  const whole = [...chosen].filter(([, names]) => names === undefined).map(([file]) => file);
  const some = [...chosen].filter(([, names]) => names !== undefined).map(([file, names]) => ({ files: [file], names }));
  return [...(whole.length > 0 ? [{ files: whole }] : []), ...some];
}

/** Arguments of `abl test` that list the tests of some files without running them. */
export function collectArguments(files: readonly string[]): string[] {
  return ['test', '--collect-only', '--format', 'json', ...files];
}
