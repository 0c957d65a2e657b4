// The steps that check what Problems shows as files change in and outside the editor: the shared
// editor scenario (tests/editors/scenario/expected.json, which Neovim and Emacs play too), a
// U+2028 typed before an edit further down, and a rename that reaches the conversation tests.
// The scenario's workspace is copied into the workspace as `shared-scenario/` (a project of its
// own) when these steps begin, after the rename, whose conversation tests load the whole folder:
// its files never opened reach the server as files created on disk.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { waitUntil, waitUntilAsync } from './serverLog';
import type { Context, Step } from './steps';

export const SHARED_FOLDER = 'shared-scenario';
/** Where the scenario lives in the repository (this file runs from dist/test/e2e/). */
export const SCENARIO_DIR = path.resolve(__dirname, '../../../../tests/editors/scenario');

interface Shown {
  line: number;
  code: string;
  severity: 'error' | 'warning';
}
type ByFile = Record<string, Shown[]>;

interface ScenarioStep {
  name: string;
  open?: string[];
  append?: { file: string; lines: string[] };
  save?: string;
  delete?: string;
  expect: ByFile;
}

const STEP_WAIT_MS = 20_000;

function render(byFile: ByFile): string {
  const files = Object.keys(byFile).filter((file) => byFile[file].length > 0).sort();
  return files.map((file) => `${file}: ${byFile[file].map((d) => `${d.line} ${d.code} ${d.severity}`).sort().join(', ')}`).join('\n') || '(nothing)';
}

export function sharedScenarioSteps({ vs, workspace }: Context, libs: () => string): Step[] {
  const page = vs.page;
  const scenario = JSON.parse(fs.readFileSync(path.join(SCENARIO_DIR, 'expected.json'), 'utf8')) as { steps: ScenarioStep[] };
  const folder = path.join(workspace, SHARED_FOLDER);

  /** The errors and warnings Problems lists for the files of `shared-scenario/`, by file name.
   * The panel is filtered to the folder, so that the few rows there are all rendered. */
  let lastRows: string[] = [];
  const problems = async (): Promise<ByFile> => {
    const rows = await vs.problems.evaluateAll((items) =>
      items.map((item) => ({
        level: item.getAttribute('aria-level'),
        label: item.getAttribute('aria-label') ?? '',
        text: (item as unknown as { innerText: string }).innerText,
        error: item.querySelector('.codicon-error, .codicon-warning') !== null ? (item.querySelector('.codicon-error') !== null ? 'error' : 'warning') : null,
      })),
    );
    lastRows = rows.map((row) => `${row.level} ${row.error ?? '-'} ${row.text.replace(/\s+/g, ' ')}`);
    const out: ByFile = {};
    let file: string | null = null;
    for (const row of rows) {
      if (row.level === '1') {
        // A file's row reads "hub.abl", its folder, then its count, without separators.
        const name = /^\s*(\S+?\.abl)/.exec(row.text)?.[1];
        file = row.text.includes(SHARED_FOLDER) && name !== undefined ? name : null;
        continue;
      }
      // A problem's row ends with its source, its code and where it is: "abl E330 [Ln 6, Col 13]".
      const where = /\babl\s*\(?([A-Z][A-Z0-9_]*)\)?\s*\[Ln (\d+), Col \d+\]/.exec(row.text);
      const code = where?.[1];
      const line = where?.[2];
      if (file === null || row.error === null || code === undefined || line === undefined) {
        continue;
      }
      (out[file] ??= []).push({ line: Number(line), code, severity: row.error as 'error' | 'warning' });
    }
    return out;
  };

  /** Waits until Problems shows `expected` for the scenario's files; fails with both if not. */
  const expectProblems = async (expected: ByFile, what: string) => {
    let shown: ByFile = {};
    try {
      await waitUntilAsync(async () => render((shown = await problems())) === render(expected), what, STEP_WAIT_MS);
    } catch {
      throw new Error(`after ${what}, Problems shows\n${render(shown)}\nand should show\n${render(expected)}\n(its rows: ${lastRows.join(' | ')})`);
    }
  };

  const showAllProblems = async () => {
    await page.keyboard.press('Control+Shift+M');
    const filter = page.locator('.markers-panel-action-filter input, .viewpane-filter input').first();
    await filter.fill(SHARED_FOLDER);
  };

  /** What Problems should show after the last scenario step played (one may be skipped). */
  let played: ByFile = {};
  const steps: Step[] = scenario.steps.map((step): Step => [
    `shared scenario: ${step.name}`,
    async () => {
      if (!fs.existsSync(folder)) {
        fs.cpSync(path.join(SCENARIO_DIR, 'workspace'), folder, { recursive: true });
        // The scenario's lines are inserted as written: without this, each new line would start
        // with the indentation of the one before it.
        const settingsFile = path.join(workspace, '.vscode', 'settings.json');
        const settings = fs.existsSync(settingsFile) ? JSON.parse(fs.readFileSync(settingsFile, 'utf8')) : {};
        fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
        fs.writeFileSync(settingsFile, JSON.stringify({ ...settings, 'editor.autoIndent': 'none' }, null, 2));
      }
      for (const file of step.open ?? []) {
        await vs.openPath(path.join(folder, file)); // created on disk a moment ago
      }
      if (step.append !== undefined) {
        const file = path.join(folder, step.append.file);
        const before = fs.readFileSync(file, 'utf8');
        await vs.openPath(file);
        await vs.editor.locator('.view-lines').click();
        await page.keyboard.press('Control+End');
        // Inserted as one piece of text: typed line by line, Enter would indent and complete.
        await page.keyboard.insertText(step.append.lines.join('\n') + '\n');
        await page.keyboard.press('Escape');
        if (step.save === step.append.file) {
          await page.keyboard.press('Control+S');
          const wanted = before + step.append.lines.join('\n') + '\n';
          await waitUntil(() => fs.readFileSync(file, 'utf8') === wanted, `${step.append.file} saved with the lines added`);
        }
      }
      if (step.delete !== undefined) {
        fs.rmSync(path.join(folder, step.delete));
      }
      played = step.expect;
      await showAllProblems();
      await expectProblems(step.expect, step.name);
    },
  ]);

  return [
    ['renaming an agent renames it in the conversation tests too', async () => {
      const loan = 'loan-supervisor.agent.abl';
      const tests = 'loan-supervisor.abltest.yaml';
      await vs.open(loan);
      const lines = fs.readFileSync(path.join(workspace, loan), 'utf8').split('\n');
      const header = lines.findIndex((l) => l === 'AGENT: Offer_Agent');
      await vs.goTo(header + 1, 'AGENT: '.length + 2);
      await page.keyboard.press('F2');
      const input = page.locator('.rename-box input');
      await input.waitFor();
      await input.fill('Offer_Desk');
      await page.keyboard.press('Enter');
      await vs.line(/AGENT:\sOffer_Desk/).first().waitFor();
      await vs.command('File: Save All Files');
      const testFile = path.join(workspace, tests);
      await waitUntil(() => fs.readFileSync(testFile, 'utf8').includes('Offer_Desk'), `${tests} to name Offer_Desk`, STEP_WAIT_MS);
      const stale = fs.readdirSync(workspace).filter((name) => name.endsWith('.abltest.yaml') && fs.readFileSync(path.join(workspace, name), 'utf8').includes('Offer_Agent'));
      if (stale.length > 0) {
        throw new Error(`after the rename ${stale.join(', ')} still name Offer_Agent`);
      }
      const result = spawnSync('python3', ['-m', 'abl', 'test', tests], {
        cwd: workspace,
        env: { ...process.env, PYTHONPATH: libs() },
        encoding: 'utf8',
        timeout: 60_000,
      });
      if (result.status !== 0) {
        throw new Error(`abl test ${tests} after the rename: exit ${result.status}\n${result.stdout}${result.stderr}`);
      }
    }],

    ...steps,

    ['U+2028 typed in a string, then an edit further down: the problems move with the edit', async () => {
      const file = 'offer.abl';
      await vs.openPath(path.join(folder, file));
      const lines = fs.readFileSync(path.join(folder, file), 'utf8').split('\n');
      const goal = lines.findIndex((l) => l.startsWith('GOAL: "'));
      // Inside the goal's quotes: LSP does not break lines at U+2028, Python's splitlines does.
      await vs.goTo(goal + 1, lines[goal].length);
      await page.keyboard.insertText('\u2028');
      const mode = lines.findIndex((l) => l.includes('mode: recent'));
      await vs.goTo(mode + 1, lines[mode].indexOf('recent') + 1);
      await page.keyboard.press('Shift+End');
      await page.keyboard.insertText('full');
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+S');
      await waitUntil(() => fs.readFileSync(path.join(folder, file), 'utf8').includes('\u2028'), `${file} saved`);
      await showAllProblems();
      // As after the scenario's last step played, less the E330 the edit fixed: a copy of the text that
      // broke lines at U+2028 would place the edit a line too low and keep the E330.
      const expected: ByFile = { ...played, [file]: (played[file] ?? []).filter((d) => d.code !== 'E330') };
      await expectProblems(expected, 'the edits after U+2028');
    }],

  ];
}
