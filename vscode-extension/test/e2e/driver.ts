// Plays the end-to-end scenario (steps.ts) in a real VS Code: code-server, driven through
// headless Chromium. Exit code 0: every step passed (a step skipped for a reason outside the
// extension says why); 1: a step failed (test-results/failed.png and failure.txt say how).
// usage: node driver.js --url URL --workspace DIR --results DIR --logs DIR --extensions DIR   (run.sh sets it up)
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { chromium } from 'playwright-core';
import { ServerLog } from './serverLog';
import { scenario, Skip } from './steps';
import { SERVER_TIMEOUT_MS, Workbench } from './workbench';

/**
 * The steps known to fail (by name, with the reason; none today): skipped, so that the rest of
 * the scenario runs. With ABL_E2E_EXPECTED_FAILURES=run they run, a failure is reported as XFAIL and
 * does not stop the run, and a pass (XPASS) fails it: remove the step from this list then.
 */
const EXPECTED_FAILURES: ReadonlyMap<string, string> = new Map<string, string>([]);
const RUN_EXPECTED_FAILURES = process.env.ABL_E2E_EXPECTED_FAILURES === 'run';

interface Options {
  readonly url: string;
  readonly workspace: string;
  readonly results: string;
  /** code-server's log folder, where the extension's output channel is written. */
  readonly logs: string;
  /** code-server's extensions folder, where the packaged extension is installed. */
  readonly extensions: string;
}

function options(argv: string[]): Options {
  const value = (name: string) => {
    const at = argv.indexOf(`--${name}`);
    if (at < 0 || at + 1 >= argv.length) {
      throw new Error(`missing --${name}`);
    }
    return argv[at + 1];
  };
  return { url: value('url'), workspace: value('workspace'), results: value('results'), logs: value('logs'), extensions: value('extensions') };
}

async function main(): Promise<number> {
  const { url, workspace, results, logs, extensions } = options(process.argv.slice(2));
  const started = Date.now();
  const say = (message: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);

  // A fresh browser profile for each run, removed afterwards.
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-profile-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(SERVER_TIMEOUT_MS);
  const vs = new Workbench(page);
  const steps = [
    ['the workbench loads', async () => {
      await page.goto(url);
      await vs.waitUntilLoaded();
    }] as const,
    ...scenario({ vs, log: new ServerLog(logs), workspace, extensions, results }),
  ];

  let failed = false;
  let skipped = 0;
  try {
    for (const [name, run] of steps) {
      const stepStarted = Date.now();
      const expectedFailure = EXPECTED_FAILURES.get(name);
      if (expectedFailure !== undefined && !RUN_EXPECTED_FAILURES) {
        skipped++;
        say(`SKIP ${name}: expected to fail (${expectedFailure}); ABL_E2E_EXPECTED_FAILURES=run runs it`);
        continue;
      }
      try {
        await run();
        if (expectedFailure !== undefined) {
          failed = true;
          say(`XPASS ${name}: it passes; remove it from EXPECTED_FAILURES in driver.ts`);
          continue;
        }
        say(`PASS ${name} (${((Date.now() - stepStarted) / 1000).toFixed(1)}s)`);
      } catch (error) {
        if (expectedFailure !== undefined) {
          skipped++;
          say(`XFAIL ${name}: ${(error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' / ')}`);
          await page.keyboard.press('Escape').catch(() => undefined);
          continue;
        }
        if (error instanceof Skip) {
          skipped++;
          say(`SKIP ${name}: ${error.message}`);
          continue;
        }
        failed = true;
        const message = error instanceof Error ? error.message : String(error);
        say(`FAIL ${name}: ${message.split('\n')[0]}`);
        fs.writeFileSync(path.join(results, 'failure.txt'), `${name}\n\n${message}\n`);
        await vs.screenshot(path.join(results, 'failed.png')).catch((e: unknown) => say(`no screenshot of the failure: ${String(e)}`));
        break; // later steps build on this one
      }
    }
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  say(failed ? 'FAILED' : `${steps.length - skipped} of ${steps.length} steps passed${skipped ? `, ${skipped} skipped` : ''}`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(2);
  },
);
