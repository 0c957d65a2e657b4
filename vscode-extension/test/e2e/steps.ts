// The scenario the end-to-end test plays in VS Code: what a user of the extension does, in order.
// Later steps build on earlier ones (edits, settings), so the driver stops at the first failure.
import * as fs from 'fs';
import * as path from 'path';
import { ServerLog, waitUntil } from './serverLog';
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
}

const RETURNS_DESK = 'returns-desk.agent.abl';
const LOAN = 'loan-supervisor.agent.abl';

/** 1-based line and column of the first occurrence of `text` in a workspace file. */
function positionOf(workspace: string, file: string, text: string): { line: number; column: number } {
  const lines = fs.readFileSync(path.join(workspace, file), 'utf8').split('\n');
  const line = lines.findIndex((l) => l.includes(text));
  if (line < 0) {
    throw new Error(`${file} has no "${text}"`);
  }
  return { line: line + 1, column: lines[line].indexOf(text) + 1 };
}

export function scenario({ vs, log, workspace, results }: Context): Step[] {
  const page = vs.page;
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
      await vs.webview().locator('#message').waitFor();
      await vs.webview().locator('#model-name', { hasText: 'model: embedded' }).waitFor();
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
      const run = vs.webview();
      await run.locator('#message').fill('I want a loan offer');
      await run.locator('#message').press('Enter');
      await run.locator('.message.agent', { hasText: 'What is your annual income?' }).waitFor();
      await run.locator('.message.agent .who', { hasText: 'Income_Capture_Agent' }).first().waitFor();
      await vs.screenshot(shot('07-run-agent'));
    }],

    ['"85k" shows the return and the handoff to Offer_Agent in the timeline', async () => {
      const run = vs.webview();
      await run.locator('#message').fill('85k');
      await run.locator('#message').press('Enter');
      const event = (type: string, text?: string) => run.locator(`.event[data-type="${type}"]`, text ? { hasText: text } : {}).first();
      await event('handoff', 'Income_Capture_Agent').waitFor();
      await event('handoff_return_handler', 'annual_income').waitFor();
      await event('resume_intent').waitFor();
      await event('handoff', 'Offer_Agent').waitFor();
      await run.locator('#variables dt', { hasText: 'annual_income' }).waitFor();
      await vs.screenshot(shot('07b-run-trace'));
    }],

    ['clicking the resume_intent event shows its route in the editor', async () => {
      await vs.webview().locator('.event[data-type="resume_intent"] button').first().click();
      await vs.activeTab(LOAN).waitFor();
      await vs.cursorAt(at(LOAN, '- TO: Income_Capture_Agent').line);
    }],

    ['ABL: Show Handoff Graph shows the loan supervisor and its two routes', async () => {
      await vs.command('ABL: Show Handoff Graph');
      await vs.tab('ABL Graph').waitFor();
      const graph = vs.webview();
      const routes = graph.locator('g.edge.handoff[aria-label^="Loan_Supervisor to "]');
      await graph.locator('g.edge.handoff.returnable[aria-label^="Loan_Supervisor to Income_Capture_Agent"]').waitFor();
      await graph.locator('g.edge.handoff.permanent[aria-label^="Loan_Supervisor to Offer_Agent"]').waitFor();
      const count = await routes.count();
      if (count !== 2) {
        throw new Error(`the graph draws ${count} routes out of Loan_Supervisor`);
      }
      await vs.screenshot(shot('07c-graph'));
      await vs.command('View: Close All Editor Groups');
      await vs.tab('ABL Graph').waitFor({ state: 'detached' });
    }],

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
  ];
}
