import * as fs from 'fs';
import * as path from 'path';
import { SERVER_TIMEOUT_MS } from './workbench';

/** The extension's output channel ("ABL Language Server"), as code-server writes it to disk:
 * what the extension says about the server it starts, and the server's own log. */
export class ServerLog {
  constructor(private readonly logsDir: string) {}

  text(): string {
    const files = fs.readdirSync(this.logsDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('ABL Language Server.log'));
    return files.map((file) => fs.readFileSync(path.join(this.logsDir, file), 'utf8')).join('\n');
  }

  says(text: string): boolean {
    return this.text().includes(text);
  }

  count(text: string): number {
    return this.text().split(text).length - 1;
  }

  /** How many times the extension has started the bundled server. */
  starts(): number {
    return this.count('Starting the bundled server on Python');
  }
}

/** Polls a condition outside the page (a file) until it holds, or fails after the timeout. */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs = SERVER_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls a condition that needs the page (an input's value) until it holds, or fails. */
export async function waitUntilAsync(condition: () => Promise<boolean>, what: string, timeoutMs = SERVER_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
