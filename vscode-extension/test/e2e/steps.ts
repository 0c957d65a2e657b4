// The scenario the end-to-end test plays in VS Code: what a user of the extension does, in order.
// Later steps build on earlier ones (edits, settings), so the driver stops at the first failure.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { Frame } from 'playwright-core';
import { debugSteps } from './debugSteps';
import { ServerLog, waitUntil, waitUntilAsync } from './serverLog';
import { sharedScenarioSteps } from './sharedScenario';
import { Workbench } from './workbench';

export type Step = readonly [name: string, run: () => Promise<void>];

/** A step that cannot run for a reason outside the extension; reported, not failed. */
export class Skip extends Error {}

export interface Context {
  readonly vs: Workbench;
  readonly log: ServerLog;
  /** The workspace folder code-server opened (a copy of the loan example plus fixtures). */
  readonly workspace: string;
  /** Where screenshots go. */
  readonly results: string;
  /** Where code-server installed the extensions. */
  readonly extensions: string;
}

const RETURNS_DESK = 'returns-desk.agent.abl';
const LOAN = 'loan-supervisor.agent.abl';
/** The name "Save as test" offers for a run of Loan_Supervisor. */
const RECORDED = 'loan_supervisor.abltest.yaml';

/** The server bundled in the installed extension (the one the editor runs). */
function bundledLibs(extensions: string): string {
  const installed = fs.readdirSync(extensions).find((name) => name.startsWith('abl-tools.abl-agent-blueprint'));
  if (installed === undefined) {
    throw new Error(`the extension is not installed in ${extensions}`);
  }
  return path.join(extensions, installed, 'bundled', 'libs');
}

/** Fails unless the graph draws exactly `count` routes out of Loan_Supervisor. */
async function expectRoutes(graph: Frame, count: number): Promise<void> {
  const drawn = await graph.locator('g.edge.handoff[aria-label^="Loan_Supervisor to "]').count();
  if (drawn !== count) {
    throw new Error(`the graph draws ${drawn} routes out of Loan_Supervisor, not ${count}`);
  }
}

/** 1-based line and column of the first occurrence of `text` in a workspace file. */
function positionOf(workspace: string, file: string, text: string): { line: number; column: number } {
  const lines = fs.readFileSync(path.join(workspace, file), 'utf8').split('\n');
  const line = lines.findIndex((l) => l.includes(text));
  if (line < 0) {
    throw new Error(`${file} has no "${text}"`);
  }
  return { line: line + 1, column: lines[line].indexOf(text) + 1 };
}

export function scenario(context: Context): Step[] {
  const { vs, log, workspace, extensions, results } = context;
  const page = vs.page;
  const runPanel = () => vs.webviewWith('#message');
  /** The timeline's events after the loan conversation, to compare when the panel comes back. */
  let timelineSeqs: number[] = [];
  const graphView = () => vs.webviewWith('#graph');
  const at = (file: string, text: string) => positionOf(workspace, file, text);
  const shot = (name: string) => path.join(results, `${name}.png`);
  const settingsFile = path.join(workspace, '.vscode', 'settings.json');
  const writeSettings = (settings: object) => {
    fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  };

  return [
    ['the bundled server starts and reports ready', async () => {
      await vs.open(RETURNS_DESK);
      await vs.serverStatus('ready').waitFor();
      // The Python extension's selection does not exist, so the search went on to PATH.
      await waitUntil(() => log.says('Starting the bundled server on Python'), 'the bundled server in the output');
      if (!log.says('from PATH)')) {
        throw new Error(`the server did not start with python3 from PATH:\n${log.text()}`);
      }
    }],

    ['E330 shows as a squiggle and in Problems', async () => {
      await vs.editor.locator('.squiggly-error').first().waitFor();
      await page.keyboard.press('Control+Shift+M');
      await vs.problems.filter({ hasText: 'E330' }).first().waitFor();
      await vs.problems.filter({ hasText: 'RETURN_NOT_LOWERCASE_TRUE' }).first().waitFor();
      await vs.screenshot(shot('01-diagnostics'));
    }],

    ['a settings change applies without a reload (abl.diagnostics.ignore)', async () => {
      writeSettings({ 'abl.diagnostics.ignore': ['E330'] });
      await vs.problems.filter({ hasText: 'E330' }).first().waitFor({ state: 'detached' });
      await vs.editor.locator('.squiggly-error').first().waitFor({ state: 'detached' });
      fs.rmSync(settingsFile);
      await vs.problems.filter({ hasText: 'E330' }).first().waitFor();
    }],

    ['hovering HISTORY shows its documentation', async () => {
      const history = at(RETURNS_DESK, 'HISTORY:');
      await vs.goTo(history.line, history.column + 2);
      await vs.showHover('How many earlier messages the target agent receives');
      await vs.screenshot(shot('02-hover-history'));
      await page.keyboard.press('Escape');
    }],

    ['completion after "HISTORY: " lists the modes', async () => {
      const history = at(RETURNS_DESK, 'HISTORY: full');
      await vs.goTo(history.line, history.column + 'HISTORY: '.length);
      await page.keyboard.press('Shift+End');
      await page.keyboard.press('Delete');
      await page.keyboard.press('Control+Space');
      const rows = page.locator('.suggest-widget .monaco-list-row');
      for (const mode of ['summary_only', 'none', 'auto', 'full']) {
        await rows.filter({ hasText: new RegExp(`^${mode}`) }).first().waitFor();
      }
      await vs.screenshot(shot('03-completion-history'));
      await page.keyboard.type('full');
      await rows.filter({ hasText: /^full/ }).first().waitFor();
      await page.keyboard.press('Enter');
      await vs.line(/HISTORY:\sfull/).first().waitFor();
    }],

    ['the quick fix turns RETURN: True into RETURN: true and the warning goes', async () => {
      const value = at(RETURNS_DESK, 'RETURN: True');
      await vs.goTo(value.line, value.column + 'RETURN: '.length + 1);
      await page.keyboard.press('Control+.');
      // The menu opens with its first action focused; Enter applies it.
      await page.locator('.action-widget .monaco-list-row.focused', { hasText: /Write `true`/ }).waitFor();
      await vs.screenshot(shot('04-quick-fix'));
      await page.keyboard.press('Enter');
      await vs.line(/RETURN:\strue/).first().waitFor();
      await vs.line(/RETURN:\sTrue/).first().waitFor({ state: 'detached' });
      await vs.problems.filter({ hasText: 'RETURN_NOT_LOWERCASE_TRUE' }).first().waitFor({ state: 'detached' });
    }],

    ['go to definition on a TO: target opens the agent', async () => {
      const target = at(RETURNS_DESK, 'TO: Income_Capture_Agent');
      await vs.goTo(target.line, target.column + 'TO: '.length + 2);
      await page.keyboard.press('F12');
      await vs.activeTab(LOAN).waitFor();
      await vs.cursorAt(at(LOAN, 'AGENT: Income_Capture_Agent').line);
      await vs.screenshot(shot('05-definition'));
    }],

    ['the outline lists the agents', async () => {
      await vs.command('Explorer: Focus on Outline View');
      const outline = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Outline' }) }).first();
      for (const agent of ['Loan_Supervisor', 'Income_Capture_Agent', 'Offer_Agent']) {
        await outline.locator('.monaco-list-row', { hasText: agent }).first().waitFor();
      }
      await vs.screenshot(shot('06-outline'));
    }],

    ['ABL: Run Agent… picks an agent and opens the Run Agent panel', async () => {
      await vs.open(RETURNS_DESK);
      const mode = at(RETURNS_DESK, 'mode: recent');
      await vs.goTo(mode.line, mode.column + 'mode: '.length);
      await page.keyboard.press('Shift+End');
      await page.keyboard.type('summary_only'); // the project must have no errors to run
      await page.keyboard.press('Escape');
      await vs.command('ABL: Run Agent…');
      const input = page.locator('.quick-input-widget input');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Returns_Desk' }).first().waitFor();
      await input.fill('Returns_Desk');
      await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: 'Returns_Desk' }).waitFor();
      await page.keyboard.press('Enter'); // saves the edited file: the run reads the project as saved
      await vs.tab('Run Returns_Desk').waitFor();
      await (await runPanel()).locator('#model-name', { hasText: 'model: embedded' }).waitFor();
      await vs.tab('Run Returns_Desk').locator('.tab-actions .action-label').click();
      await vs.tab('Run Returns_Desk').waitFor({ state: 'detached' });
    }],

    ['the code lenses show the handoffs into an agent', async () => {
      await vs.open(LOAN);
      const lenses = vs.editor.locator('.codelens-decoration a');
      // Above Income_Capture_Agent: two routes lead to it, one in each supervisor.
      await lenses.filter({ hasText: '2 handoffs in', visible: true }).first().click();
      await page.locator('.reference-zone-widget .monaco-list-row', { hasText: RETURNS_DESK }).first().waitFor();
      await vs.screenshot(shot('08-handoffs-in'));
      await page.keyboard.press('Escape');
    }],

    ['the "Run agent" code lens opens the panel; the chat asks for the income', async () => {
      await vs.goTo(1, 1);
      const lens = vs.editor.locator('.codelens-decoration a').filter({ hasText: 'Run agent', visible: true }).first();
      await lens.click();
      await vs.tab('Run Loan_Supervisor').waitFor();
      const run = await runPanel();
      await run.locator('#message').fill('I want a loan offer');
      await run.locator('#message').press('Enter');
      await run.locator('.message.agent', { hasText: 'What is your annual income?' }).waitFor();
      await run.locator('.message.agent .who', { hasText: 'Income_Capture_Agent' }).first().waitFor();
      await vs.screenshot(shot('07-run-agent'));
    }],

    ['"85k" shows the return and the handoff to Offer_Agent in the timeline, each event once', async () => {
      const run = await runPanel();
      await run.locator('#message').fill('85k');
      await run.locator('#message').press('Enter');
      const event = (type: string, text?: string) => run.locator(`.event[data-type="${type}"]`, text ? { hasText: text } : {}).first();
      await event('handoff', 'Income_Capture_Agent').waitFor();
      await event('handoff_return_handler', 'mapped annual_income').waitFor();
      await event('resume_intent').waitFor();
      await event('handoff', 'Offer_Agent · permanent').waitFor();
      await run.locator('.message.agent .who', { hasText: 'Offer_Agent' }).first().waitFor(); // the offer flow answers
      await run.locator('#variables dt', { hasText: 'annual_income' }).waitFor();
      // Events come live and again in the answer: the timeline holds each one once, in order.
      const seqs = (await run.locator('.event').evaluateAll((items) => items.map((item) => Number(item.getAttribute('data-seq'))))) as number[];
      if (new Set(seqs).size !== seqs.length || seqs.some((seq, i) => i > 0 && seq <= seqs[i - 1])) {
        throw new Error(`the timeline's events are not each shown once in order: ${seqs.join(' ')}`);
      }
      timelineSeqs = seqs;
      const kinds = await run.locator('.event').evaluateAll((items) => items.map((item) => item.getAttribute('data-type')));
      const moves = kinds.filter((kind) => kind === 'handoff' || kind === 'handoff_return_handler' || kind === 'resume_intent');
      if (moves.join(' ') !== 'handoff handoff_return_handler resume_intent handoff') {
        throw new Error(`the timeline's moves are ${moves.join(', ')}`);
      }
      await vs.screenshot(shot('07b-run-trace'));
    }],

    ['clicking the resume_intent event shows its route in the editor', async () => {
      await (await runPanel()).locator('.event[data-type="resume_intent"] button').first().click();
      await vs.activeTab(LOAN).waitFor();
      await vs.cursorAt(at(LOAN, '- TO: Income_Capture_Agent').line);
    }],

    ['the keyboard reaches the events: Enter on the handoff to Offer_Agent shows its route', async () => {
      const run = await runPanel();
      await run.locator('.event[data-type="handoff"]', { hasText: 'Offer_Agent' }).locator('button').first().focus();
      await page.keyboard.press('Enter');
      await vs.activeTab(LOAN).waitFor();
      await vs.cursorAt(at(LOAN, '- TO: Offer_Agent').line);
    }],

    ['the panel\'s page loads again with the same conversation and timeline', async () => {
      const before = await runPanel();
      await vs.command('Developer: Reload Webviews');
      await waitUntil(() => before.isDetached(), 'the Run Agent page to go');
      const run = await runPanel();
      await run.locator('.message.agent', { hasText: 'What is your annual income?' }).waitFor();
      await run.locator('.message.user', { hasText: '85k' }).waitFor();
      await run.locator('.event').first().waitFor();
      const seqs = await run.locator('.event').evaluateAll((items) => items.map((item) => Number(item.getAttribute('data-seq'))));
      if (seqs.join(' ') !== timelineSeqs.join(' ')) {
        throw new Error(`the timeline is ${seqs.join(' ')} after the page loaded again, not ${timelineSeqs.join(' ')}`);
      }
    }],

    ['the panel follows the theme (high contrast, dark, light) and allows only its own script', async () => {
      const run = await runPanel();
      const policy = (await run.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')) ?? '';
      for (const rule of ["default-src 'none'", "script-src 'nonce-"]) {
        if (!policy.includes(rule)) {
          throw new Error(`the panel's content security policy lacks ${rule}: ${policy}`);
        }
      }
      // Beyond the nonce, only the webview's own origin (VS Code's `cspSource`) is allowed.
      const origins = policy.match(/https?:\/\/[^\s;]+/g) ?? [];
      if (/unsafe-inline|unsafe-eval/.test(policy) || origins.some((origin) => !origin.endsWith('.vscode-cdn.net'))) {
        throw new Error(`the panel's content security policy lets in more than its own files: ${policy}`);
      }
      const remote = await run.locator('script[src], link[href], img[src]').evaluateAll((nodes) =>
        nodes.map((node) => node.getAttribute('src') ?? node.getAttribute('href') ?? '').filter((url) => !new URL(url, 'https://x.vscode-cdn.net/').hostname.endsWith('.vscode-cdn.net')),
      );
      if (remote.length > 0) {
        throw new Error(`the panel loads ${remote.join(', ')}`);
      }
      const background = async (bodyClass: string) => {
        const frame = await vs.webviewWith(`body.${bodyClass} #message`);
        return frame.locator('body').evaluate((body) => body.ownerDocument.defaultView?.getComputedStyle(body).backgroundColor ?? '');
      };
      writeSettings({ 'workbench.colorTheme': 'Default High Contrast' });
      if ((await background('vscode-high-contrast')) !== 'rgb(0, 0, 0)') {
        throw new Error('the panel is not black in the high contrast theme');
      }
      await vs.screenshot(shot('07d-run-high-contrast'));
      const channels = (colour: string) => (colour.match(/\d+/g) ?? []).slice(0, 3).map(Number);
      writeSettings({ 'workbench.colorTheme': 'Default Dark Modern' });
      const dark = await background('vscode-dark');
      if (!channels(dark).every((channel) => channel < 80)) {
        throw new Error(`the panel is ${dark} in the dark theme`);
      }
      fs.rmSync(settingsFile); // back to the default, light theme
      const light = await background('vscode-light');
      if (!channels(light).every((channel) => channel > 200)) {
        throw new Error(`the panel is ${light} in the light theme`);
      }
    }],

    ['"Save as test" writes a conversation test that the bundled abl test passes', async () => {
      const run = await runPanel();
      await run.locator('#btn-save-test').click();
      // VS Code's own save dialog, offered beside the agent's file.
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible' });
      await waitUntilAsync(async () => (await input.inputValue()).endsWith(RECORDED), `the save dialog to offer ${RECORDED}`);
      await page.keyboard.press('Enter');
      await vs.notification('Saved the conversation as a test').waitFor();
      await vs.command('Notifications: Clear All Notifications');
      const recorded = path.join(workspace, RECORDED);
      const result = spawnSync('python3', ['-m', 'abl', 'test', recorded], {
        cwd: workspace,
        env: { ...process.env, PYTHONPATH: bundledLibs(extensions) },
        encoding: 'utf8',
        timeout: 60_000,
      });
      if (result.status !== 0 || !result.stdout.includes('PASS recorded conversation')) {
        throw new Error(`abl test on the saved test: exit ${result.status}\n${result.stdout}${result.stderr}`);
      }
    }],

    ['the Testing view lists the conversation tests; running them passes, the saved one too', async () => {
      await vs.command('Testing: Focus on Test Explorer View');
      await vs.testRow(RECORDED).waitFor();
      await vs.testRow('loan-supervisor.abltest.yaml').waitFor();
      await vs.command('Test: Run All Tests');
      await vs.testRow(RECORDED, 'Passed').waitFor();
      await vs.testRow('loan-supervisor.abltest.yaml', 'Passed').waitFor();
      await vs.testRow(RECORDED).locator('.monaco-tl-twistie').click();
      await vs.testRow('recorded conversation', 'Passed').waitFor();
      await vs.screenshot(shot('13-testing-view'));
    }],

    ['a conversation test that fails shows the failure at the failing turn', async () => {
      const recorded = path.join(workspace, RECORDED);
      const text = fs.readFileSync(recorded, 'utf8');
      // The second turn now expects the wrong agent; the view reads the file again as it changes.
      const wrong = text.replace(/(- user: 85k\n\s+agent: )Offer_Agent/, '$1Income_Capture_Agent');
      if (wrong === text) {
        throw new Error(`the recorded test has no second turn to break:\n${text}`);
      }
      fs.writeFileSync(recorded, wrong);
      await vs.command('Test: Run All Tests');
      await vs.testRow('recorded conversation', 'Failed').waitFor();
      await vs.testRow('loan-supervisor.abltest.yaml', 'Passed').waitFor();
      // Opening the failed test shows its message where the test file says what went wrong.
      await vs.testRow('recorded conversation', 'Failed').dblclick();
      await vs.activeTab(RECORDED).waitFor();
      // The `agent:` check of the second turn: the line after its `- user: 85k`.
      await vs.cursorAt(at(RECORDED, '- user: 85k').line + 1);
      await page.locator('.test-output-peek, .peekview-widget', { hasText: 'the active agent after the turn differs' }).first().waitFor();
      await vs.screenshot(shot('14-test-failure'));
      await page.keyboard.press('Escape');
      fs.writeFileSync(recorded, text);
      await page.keyboard.press('Control+W'); // the test file; the run goes on in its panel
      await vs.tab(RECORDED).waitFor({ state: 'detached' });
    }],

    ['a test file that cannot be read is marked, and the other files still run', async () => {
      // All files run in one `abl test`, which runs nothing while one cannot be read: the view
      // runs the others again without it. The recorded test failed in the step before and is
      // whole again, so its passing shows that this run reached it.
      const broken = path.join(workspace, 'broken.abltest.yaml');
      fs.writeFileSync(broken, 'tests: [\n');
      await vs.testRow('broken.abltest.yaml').waitFor();
      await vs.command('Test: Run All Tests');
      await vs.testRow(RECORDED, 'Passed').waitFor();
      await vs.testRow('broken.abltest.yaml', 'Errored').waitFor();
      await vs.testRow('loan-supervisor.abltest.yaml', 'Passed').waitFor();
      fs.unlinkSync(broken);
      await vs.testRow('broken.abltest.yaml').waitFor({ state: 'detached' });
    }],

    ['the ABL Graph view shows the loan supervisor and its two routes, with the run\'s moves numbered', async () => {
      await vs.open(LOAN);
      await vs.goTo(at(LOAN, 'SUPERVISOR: Loan_Supervisor').line, 1);
      await vs.command('ABL: Show Handoff Graph');
      const graph = await graphView();
      await graph.locator('#scope', { hasText: 'Around Loan_Supervisor' }).waitFor();
      await graph.locator('g.edge.handoff.returnable[aria-label^="Loan_Supervisor to Income_Capture_Agent"]').waitFor();
      await graph.locator('g.edge.handoff.permanent[aria-label^="Loan_Supervisor to Offer_Agent"]').waitFor();
      await expectRoutes(graph, 2);
      // The run in the panel went there and back, then on to Offer_Agent.
      await graph.locator('#run', { hasText: 'Run of Loan_Supervisor: 3 moves' }).waitFor();
      for (const [order, edge] of [
        ['1', 'g.edge.handoff[aria-label^="Loan_Supervisor to Income_Capture_Agent"]'],
        ['2', 'g.edge.return[aria-label^="Income_Capture_Agent to Loan_Supervisor"]'],
        ['3', 'g.edge.handoff[aria-label^="Loan_Supervisor to Offer_Agent"]'],
      ]) {
        const index = await graph.locator(`${edge}.taken`).getAttribute('data-edge');
        await graph.locator(`g.step[data-edge="${index}"][data-order="${order}"]`).waitFor();
      }
      await vs.screenshot(shot('07c-graph'));
    }],

    ['a HANDOFF route typed in the editor appears in the graph at once; clicking it shows it', async () => {
      const blank = at(LOAN, 'AGENT: Income_Capture_Agent').line - 1; // the empty line after the supervisor
      await vs.goTo(blank, 1);
      await page.keyboard.type('  - TO: Escalation_Agent');
      await page.keyboard.press('Escape'); // the completion list, if it opened
      let graph = await graphView();
      const added = 'g.edge.handoff[aria-label^="Loan_Supervisor to Escalation_Agent"]';
      await graph.locator(added).waitFor();
      graph = await graphView();
      await expectRoutes(graph, 3);
      await vs.screenshot(shot('07e-graph-typed-route'));
      await vs.goTo(1, 1);
      // A click in the middle of the edge (a straight one has no height, which a locator's click
      // takes for hidden).
      // The drawing may be redrawn under the mouse (the analysis of the last keystrokes): click
      // again until the editor shows the route.
      await waitUntilAsync(async () => {
        const box = await graph.locator(`${added} path.hit`).boundingBox({ timeout: 1000 }).catch(() => null);
        if (box !== null) {
          await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
        }
        return vs.cursorAt(blank, undefined, 2000).then(() => true, () => false);
      }, 'a click on the new edge to show its route');
      await vs.activeTab(LOAN).waitFor();
      await vs.goTo(1, 1); // the editor, not the graph, has the focus for the revert
      await vs.command('File: Revert File');
      await vs.line(/Escalation_Agent/).first().waitFor({ state: 'detached' });
      await graph.locator(added).waitFor({ state: 'detached' });
      await vs.command('View: Close All Editor Groups');
      await vs.tab('Run Loan_Supervisor').waitFor({ state: 'detached' });
      // The run ended with its panel: its moves are no longer drawn.
      await graph.locator('#run', { hasText: /Run of/ }).waitFor({ state: 'detached' });
      await graph.locator('g.edge.taken').first().waitFor({ state: 'detached' });
    }],

    ...debugSteps(context),

    ['without a suitable Python one notification says how to fix it', async () => {
      writeSettings({ 'abl.interpreter': path.join(workspace, 'no-such-python') });
      await vs.notification('abl.interpreter is not Python 3.10 or newer').waitFor();
      await vs.serverStatus('error').waitFor();
      await vs.screenshot(shot('09-no-python'));
      const starts = log.starts();
      fs.rmSync(settingsFile);
      await waitUntil(() => log.starts() > starts, 'the server to start again');
      await vs.serverStatus('ready').waitFor();
    }],

    ['ABL: Restart Language Server restarts it; ABL: Show Server Output shows its log', async () => {
      const before = log.starts();
      await vs.command('ABL: Restart Language Server');
      await waitUntil(() => log.starts() > before, 'a new start in the server log');
      await vs.serverStatus('ready').waitFor();
      await vs.open(RETURNS_DESK); // the new server answers
      const history = at(RETURNS_DESK, 'HISTORY:');
      await vs.goTo(history.line, history.column + 2);
      await vs.showHover('How many earlier messages');
      await page.keyboard.press('Escape');
      await vs.command('ABL: Show Server Output');
      await page.locator('.output-view .view-line', { hasText: /./ }).first().waitFor();
      await vs.screenshot(shot('10-restarted-output'));
    }],

    ['selecting an interpreter in the Python extension restarts the server with it', async () => {
      const before = log.starts();
      await vs.command('Python: Select Interpreter (test stand-in)');
      await waitUntil(() => log.starts() > before, 'a new start in the server log');
      await waitUntil(() => log.says('from the Python extension)'), 'a start with the selected interpreter');
      await vs.serverStatus('ready').waitFor();
    }],

    ['Enter indents after "KEY:" and continues list items; {{ closes with }}', async () => {
      await vs.open(RETURNS_DESK);
      const route = at(RETURNS_DESK, '- TO: Escalation_Agent');
      await vs.goTo(route.line, route.column + '- TO: Escalation_Agent'.length);
      await page.keyboard.press('Enter'); // another key of the item: under `TO`
      await vs.cursorAt(route.line + 1, route.column + 2);
      await page.keyboard.type('HISTORY:');
      // The server offers the modes after `:` (a trigger character); Enter must start a line, not
      // take one. The list may open a moment after the keystroke: wait for it, then close it.
      const suggestions = page.locator('.suggest-widget.visible');
      if (await suggestions.waitFor({ timeout: 3000 }).then(() => true, () => false)) {
        await page.keyboard.press('Escape');
        await suggestions.waitFor({ state: 'hidden' });
      }
      await page.keyboard.press('Enter'); // the value block of a key: one level deeper
      await vs.cursorAt(route.line + 2, route.column + 4);
      const item = at(RETURNS_DESK, '- annual_income');
      await vs.goTo(item.line, item.column + '- annual_income'.length);
      await page.keyboard.press('Enter'); // a plain item: the next item
      await vs.line(/^\s*-\s$/).first().waitFor();
      await vs.cursorAt(item.line + 1, item.column + 2);
      await page.keyboard.type('{{');
      await vs.line(/^\s*-\s\{\{\}\}$/).first().waitFor();
      await vs.command('File: Revert File');
      await vs.line(/^\s*-\s\{\{/).first().waitFor({ state: 'detached' });
    }],

    ['an .abl file taken by another extension gets one offer to fix it', async () => {
      await vs.open('escalation.abl');
      await vs.languageIndicator('OpenEdge ABL').waitFor();
      const offer = vs.notification('is an Agent Blueprint file');
      await offer.waitFor();
      await vs.screenshot(shot('11-language-conflict'));
      await offer.locator('.monaco-button', { hasText: 'Use ABL (Agent Blueprint) for *.abl' }).click();
      await vs.languageIndicator('ABL (Agent Blueprint)').waitFor();
      const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
      if (settings['files.associations']?.['*.abl'] !== 'abl-agent') {
        throw new Error(`files.associations is ${JSON.stringify(settings['files.associations'])}`);
      }
    }],

    ['ABL: Fix All applies the safe fixes of the file', async () => {
      await vs.editor.locator('.squiggly-warning').first().waitFor(); // `Complete` is read as `COMPLETE`
      await vs.command('ABL: Fix All');
      await vs.line(/^COMPLETE:/).waitFor();
      await vs.line(/^Complete:/).waitFor({ state: 'detached' });
      await vs.editor.locator('.squiggly-warning').first().waitFor({ state: 'detached' });
    }],

    ['the walkthrough shows its three steps', async () => {
      await vs.command('Welcome: Open Walkthrough...');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get started with ABL' }).first().click();
      for (const step of ['Open an example project', 'See a diagnostic', 'Run an agent']) {
        await page.locator('.getting-started-step', { hasText: step }).first().waitFor();
      }
      await vs.screenshot(shot('12-walkthrough'));
    }],

    ...sharedScenarioSteps(context, () => bundledLibs(extensions)),
  ];
}
