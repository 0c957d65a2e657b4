import { execFile } from 'child_process';
import * as vscode from 'vscode';
import { isSupported, MINIMUM_PYTHON, parseProbeOutput, PROBE_SCRIPT } from '../pythonVersion';
import { selectedInterpreter } from './pythonExtension';

export type InterpreterSource = 'abl.interpreter' | 'the Python extension' | 'PATH';

export interface Interpreter {
  readonly executable: string;
  readonly version: string;
  readonly source: InterpreterSource;
}

/** A Python that was tried and why it cannot run the server. */
export interface Rejection {
  readonly command: string;
  readonly source: InterpreterSource;
  readonly reason: string;
}

export type InterpreterSearch =
  | { readonly found: Interpreter }
  | { readonly found?: undefined; readonly rejected: readonly Rejection[] };

const PROBE_TIMEOUT_MS = 15_000;
const MINIMUM = MINIMUM_PYTHON.join('.');

/** The Python for the bundled server: `abl.interpreter` when set (and nothing else, since it is
 * an explicit choice), else the Python extension's selection, else `python3`/`python` on PATH. */
export async function findInterpreter(setting: string, resource: vscode.Uri | undefined): Promise<InterpreterSearch> {
  const candidates: { command: string; source: InterpreterSource }[] = [];
  const rejected: Rejection[] = [];
  if (setting) {
    candidates.push({ command: setting, source: 'abl.interpreter' });
  } else {
    try {
      const selected = await selectedInterpreter(resource);
      if (selected) {
        candidates.push({ command: selected, source: 'the Python extension' });
      }
    } catch (error) {
      rejected.push({ command: 'its selected interpreter', source: 'the Python extension', reason: `unreadable (${String(error)})` });
    }
    const onPath = process.platform === 'win32' ? ['python', 'python3'] : ['python3', 'python'];
    candidates.push(...onPath.map((command) => ({ command, source: 'PATH' as const })));
  }
  for (const candidate of candidates) {
    const outcome = await probe(candidate.command);
    if (typeof outcome === 'string') {
      rejected.push({ ...candidate, reason: outcome });
    } else if (!isSupported(outcome.version)) {
      rejected.push({ ...candidate, reason: `Python ${outcome.version}, older than ${MINIMUM}` });
    } else {
      return { found: { executable: outcome.executable, version: outcome.version, source: candidate.source } };
    }
  }
  return { rejected };
}

/** Runs `command` as Python; its executable and version, or why that failed. */
function probe(command: string): Promise<{ executable: string; version: string } | string> {
  return new Promise((resolve) => {
    execFile(command, ['-c', PROBE_SCRIPT], { timeout: PROBE_TIMEOUT_MS, windowsHide: true }, (error, stdout) => {
      if (error) {
        const code = (error as NodeJS.ErrnoException).code;
        resolve(code === 'ENOENT' ? 'not found' : `does not run (${error.message.split('\n')[0]})`);
        return;
      }
      resolve(parseProbeOutput(stdout) ?? 'is not a Python interpreter');
    });
  });
}
