// The steps that debug an agent as a user does: a breakpoint set with a click in the gutter, a
// launch.json with the customer's messages, F5, the stop on the route with its values, F11 into
// the agent the route hands over to, F5 to the end. Then the "Debug agent" code lens, with the
// customer's messages typed in the Debug Console.
import * as fs from 'fs';
import * as path from 'path';
import { Locator } from 'playwright-core';
import { waitUntilAsync } from './serverLog';
import type { Context, Step } from './steps';

const LOAN = 'loan-supervisor.agent.abl';
const CONFIGURATION = 'Debug the loan conversation';
/** The second route's condition, which holds once the income is known (not `IS NOT SET`). */
const SECOND_ROUTE_WHEN = /^\s+WHEN:\s+annual_income\s+IS\s+SET/;
const OFFER_AGENT = /^AGENT:\s+Offer_Agent/;

export function debugSteps({ vs, workspace, results }: Context): Step[] {
  const page = vs.page;
  const shot = (name: string) => path.join(results, `${name}.png`);
  const launchFile = path.join(workspace, '.vscode', 'launch.json');
  const toolbar = page.locator('.debug-toolbar');
  type Box = { x: number; y: number; width: number; height: number };
  const box = (locator: Locator): Promise<Box | null> => locator.boundingBox({ timeout: 1000 }).catch(() => null);

  /** The rendered editor line whose text matches `pattern` (exactly one). */
  const line = async (pattern: RegExp): Promise<Locator> => {
    const rendered = vs.editor.locator('.view-lines .view-line');
    let texts: string[] = [];
    for (const deadline = Date.now() + 15_000; ; ) {
      // Without the icons (private-use characters) and zero-width characters of inline decorations.
      texts = (await rendered.evaluateAll((nodes) => nodes.map((node) => node.textContent ?? ''))).map((text) => text.replace(/[\u200b-\u200f\u2060\ufeff\ue000-\uf8ff]/g, ''));
      const matching = texts.map((text, index) => (pattern.test(text) ? index : -1)).filter((index) => index >= 0);
      if (matching.length === 1) {
        return rendered.nth(matching[0]);
      }
      if (Date.now() > deadline) {
        const shown = texts.map((text) => [...text].map((c) => (c.charCodeAt(0) > 126 ? `\\u${c.charCodeAt(0).toString(16)}` : c)).join(''));
        throw new Error(`${matching.length} rendered lines match ${pattern}:\n${shown.join('\n')}`);
      }
      await page.waitForTimeout(100);
    }
  };

  /** The 1-based line of the first line of the loan file that holds `text`. */
  const lineOf = (text: string): number => fs.readFileSync(path.join(workspace, LOAN), 'utf8').split('\n').findIndex((l) => l.includes(text)) + 1;

  /** Waits until the editor shows the run stopped on the line matching `pattern`, the `text`
   * of that line in the file: the cursor on it, and the stack frame's arrow in the gutter beside it. */
  const stoppedOn = async (pattern: RegExp, text: string): Promise<void> => {
    await vs.cursorAt(lineOf(text));
    const target = await line(pattern);
    const arrow = vs.editor.locator('.margin [class*="codicon-debug-"][class*="stackframe"]');
    await waitUntilAsync(async () => {
      const [a, b] = [await box(arrow.first()), await box(target)];
      return a !== null && b !== null && Math.abs(a.y + a.height / 2 - (b.y + b.height / 2)) < b.height / 2;
    }, `the stack frame's arrow beside ${pattern}`);
  };

  /** Waits until the Variables view shows `name` with `value` (VS Code writes `name = value`). */
  const variableShown = async (name: string, value: string): Promise<void> => {
    const rows = page.locator('.debug-variables .monaco-list-row');
    let texts: string[] = [];
    await waitUntilAsync(async () => {
      texts = await rows.evaluateAll((nodes) => nodes.map((node) => node.textContent ?? ''));
      return texts.some((text) => new RegExp(`^${name}\\W+${value}$`).test(text.trim()));
    }, `the Variables view to show ${name} = ${value}`).catch((error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}; it shows: ${texts.join(' | ')}`);
    });
  };

  /** Where the route's line and the gutter are on screen. */
  const measure = async (): Promise<{ lineBox: Box; gutter: Box }> => {
    for (const deadline = Date.now() + 15_000; ; ) {
      const [lineBox, gutter] = [await box(await line(SECOND_ROUTE_WHEN)), await box(vs.editor.locator('.margin[role="presentation"]'))];
      if (lineBox !== null && gutter !== null) {
        return { lineBox, gutter };
      }
      if (Date.now() > deadline) {
        throw new Error('the editor shows no gutter beside the route');
      }
      await page.waitForTimeout(100);
    }
  };

  return [
    ['a click in the gutter sets a breakpoint on the second route\'s WHEN', async () => {
      await vs.command('View: Close All Editor Groups');
      await vs.open(LOAN);
      // The lines move as the code lenses arrive: measure once they are in place.
      await vs.editor.locator('.codelens-decoration a', { hasText: 'Debug agent' }).first().waitFor();
      const { lineBox, gutter } = await measure();
      // The glyph margin is the gutter's first column, left of the line numbers.
      await page.mouse.click(gutter.x + 8, lineBox.y + lineBox.height / 2);
      const breakpoint = vs.editor.locator('.margin .codicon-debug-breakpoint');
      await breakpoint.first().waitFor();
      const mark = await breakpoint.first().boundingBox();
      if (mark === null || Math.abs(mark.y + mark.height / 2 - (lineBox.y + lineBox.height / 2)) > lineBox.height / 2) {
        throw new Error('the breakpoint is not on the WHEN line');
      }
      await vs.screenshot(shot('15-breakpoint'));
    }],

    ['F5 with a launch.json of the customer\'s messages stops on the route, with annual_income = 85000', async () => {
      fs.mkdirSync(path.dirname(launchFile), { recursive: true });
      const configuration = {
        type: 'abl',
        request: 'launch',
        name: CONFIGURATION,
        program: `\${workspaceFolder}/${LOAN}`,
        agent: 'Loan_Supervisor',
        messages: ['I want a loan offer', '85,000'],
      };
      fs.writeFileSync(launchFile, JSON.stringify({ version: '0.2.0', configurations: [configuration] }, null, 2));
      // Run and Debug offers the configuration once it has read launch.json; F5 starts that one.
      await vs.command('View: Show Run and Debug');
      await page.locator('.start-debug-action-item select option', { hasText: CONFIGURATION }).first().waitFor({ state: 'attached' });
      await vs.activeTab(LOAN).click();
      await page.keyboard.press('F5');
      await toolbar.waitFor();
      await stoppedOn(SECOND_ROUTE_WHEN, 'WHEN: annual_income IS SET');
      await variableShown('annual_income', '85000');
      await vs.screenshot(shot('16-stopped-on-route'));
    }],

    ['F11 steps into Offer_Agent', async () => {
      await page.keyboard.press('F11');
      await stoppedOn(OFFER_AGENT, 'AGENT: Offer_Agent');
      await page.locator('.debug-call-stack .monaco-list-row', { hasText: 'Offer_Agent' }).first().waitFor();
      await vs.screenshot(shot('17-stepped-into-offer-agent'));
    }],

    ['F5 runs the conversation to its end and the session goes', async () => {
      await page.keyboard.press('F5');
      await toolbar.waitFor({ state: 'hidden' });
      await vs.editor.locator('.margin [class*="codicon-debug-"][class*="stackframe"]').first().waitFor({ state: 'detached' });
      fs.rmSync(launchFile);
    }],

    ['the "Debug agent" lens starts a session; the Debug Console is the customer', async () => {
      // A second click in the gutter removes the breakpoint: this session runs to the customer.
      await vs.goTo(lineOf('WHEN: annual_income IS SET'), 1);
      const { lineBox, gutter } = await measure();
      await page.mouse.click(gutter.x + 8, lineBox.y + lineBox.height / 2);
      await vs.editor.locator('.margin .codicon-debug-breakpoint').first().waitFor({ state: 'detached' });
      await vs.goTo(1, 1);
      const lens = vs.editor.locator('.codelens-decoration a').filter({ hasText: 'Debug agent', visible: true }).first();
      // A lens provided again as it is clicked runs nothing (the editor drops the old one's
      // command): click again, once a click had time to start the adapter, until a session starts.
      await waitUntilAsync(async () => {
        await lens.click();
        return toolbar.waitFor({ timeout: 15_000 }).then(() => true, () => false);
      }, 'a click on the "Debug agent" lens to start a session');
      // With more than one session the toolbar offers a choice of them.
      if ((await toolbar.locator('select').count()) > 0) {
        throw new Error('the lens started more than one session');
      }
      // The Debug Console opens with the session; its input line is the customer's.
      const repl = page.locator('.repl');
      const asked = repl.locator('.monaco-list-row', { hasText: 'What is your annual income?' });
      const before = await asked.count(); // the first session's conversation may still be shown
      await repl.locator('.repl-input-wrapper').click();
      await page.keyboard.type('I want a loan offer');
      await page.keyboard.press('Enter');
      await waitUntilAsync(async () => (await asked.count()) > before, 'the agent to ask the customer for the income');
      await vs.screenshot(shot('18-debug-console-customer'));
    }],

    ['while the session runs, the Run Agent panel of the file is its customer', async () => {
      const thanked = page.locator('.repl .monaco-list-row', { hasText: 'Thanks. I have your income.' });
      const before = await thanked.count();
      await vs.activeTab(LOAN).click();
      await vs.goTo(1, 1);
      await vs.editor.locator('.codelens-decoration a').filter({ hasText: 'Run agent', visible: true }).first().click();
      await vs.tab('Run Loan_Supervisor').waitFor();
      const run = await vs.webviewWith('#message');
      await run.locator('#message').fill('85,000');
      await run.locator('#message').press('Enter');
      // The debug session answers: in the panel's chat and in the Debug Console.
      await run.locator('.message.agent', { hasText: 'Thanks. I have your income.' }).waitFor();
      await waitUntilAsync(async () => (await thanked.count()) > before, 'the Debug Console to show the answer too');
      await vs.screenshot(shot('19-run-panel-customer'));
      await vs.command('View: Close All Editor Groups');
      await vs.tab('Run Loan_Supervisor').waitFor({ state: 'detached' });
      await page.keyboard.press('Shift+F5'); // Debug: Stop
      await toolbar.waitFor({ state: 'hidden' });
    }],
  ];
}
