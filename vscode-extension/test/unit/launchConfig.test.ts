import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { ActiveFile, agentToDebug, checkPaths, configurationFor, resolveConfiguration } from '../../src/debug/launchConfig';

const LOAN = ['SUPERVISOR: Loan_Supervisor', 'GOAL: "Route loan requests"', 'HANDOFF:', '  - TO: Offer_Agent', '', 'AGENT: Offer_Agent', 'GOAL: "Offer"', ''].join('\n');
const FOLDER = path.resolve('/work/loan');
const FILE = path.join(FOLDER, 'loan.agent.abl');

function editor(cursorLine: number, overrides: Partial<ActiveFile> = {}): ActiveFile {
  return { path: FILE, isAbl: true, text: LOAN, cursorLine, ...overrides };
}

function resolved(given: Record<string, unknown>, active: ActiveFile | undefined, folder: string | undefined = FOLDER): Record<string, unknown> {
  const resolution = resolveConfiguration(given, active, folder);
  assert.ok('config' in resolution, `refused: ${'problem' in resolution ? resolution.problem : ''}`);
  return resolution.config;
}

function problem(given: Record<string, unknown>, active: ActiveFile | undefined): string {
  const resolution = resolveConfiguration(given, active, FOLDER);
  assert.ok('problem' in resolution, `resolved to ${JSON.stringify(resolution)}`);
  return resolution.problem;
}

test('F5 without a launch.json debugs the agent at the cursor of the open ABL file', () => {
  assert.deepEqual(resolved({}, editor(6)), { type: 'abl', request: 'launch', name: 'Debug Offer_Agent', program: FILE, agent: 'Offer_Agent', cwd: FOLDER });
  assert.equal(resolved({}, editor(1)).agent, 'Loan_Supervisor');
  assert.equal(resolved({ noDebug: true }, editor(6)).noDebug, true, 'Ctrl+F5 runs without stopping');
});

test('above the first header the file\'s first agent is debugged', () => {
  const text = `# loans\n\n${LOAN}`;
  assert.equal(resolved({}, editor(0, { text })).agent, 'Loan_Supervisor');
  assert.equal(agentToDebug(editor(0, { text })), 'Loan_Supervisor');
});

test('a file without an agent header is debugged with the project\'s default agent', () => {
  const config = resolved({}, editor(0, { text: 'TOOLS:\n  lookup:\n    description: "x"\n' }));
  assert.equal(config.program, FILE);
  assert.equal('agent' in config, false);
  assert.equal(config.name, 'Debug ABL agent');
});

test('without an ABL file F5 is refused with a message that says what to open', () => {
  assert.match(problem({}, undefined), /open an agent or supervisor \(\.abl\)/);
  assert.match(problem({}, editor(0, { isAbl: false })), /no ABL file to debug/);
  // An OpenEdge .abl file in the editor is not an agent blueprint.
  assert.match(problem({}, editor(0, { text: 'DEFINE VARIABLE x AS CHARACTER NO-UNDO.\n' })), /no ABL file to debug/);
});

test('a configuration without a program gets the open file, and keeps the agent it names', () => {
  const config = resolved({ type: 'abl', request: 'launch', name: 'Mine', agent: 'Loan_Supervisor', messages: ['hi'] }, editor(6));
  assert.deepEqual(config, { type: 'abl', request: 'launch', name: 'Mine', agent: 'Loan_Supervisor', messages: ['hi'], program: FILE, cwd: FOLDER });
  assert.equal(resolved({ type: 'abl', name: 'x', program: '  ' }, editor(6)).program, FILE, 'a blank program is missing');
});

test('a configuration without a program and no ABL file open is refused by name', () => {
  assert.match(problem({ type: 'abl', request: 'launch', name: 'Loans' }, undefined), /"Loans" has no "program".*"\$\{file\}"/);
});

test('a complete configuration is kept as written, with the workspace folder as cwd', () => {
  const given = { type: 'abl', request: 'launch', name: 'Loans', program: '${workspaceFolder}', messages: ['I want a loan offer', '85,000'] };
  assert.deepEqual(resolved(given, undefined), { ...given, cwd: FOLDER });
  assert.equal(resolved({ ...given, cwd: '/elsewhere' }, undefined).cwd, '/elsewhere');
  const withoutFolder = resolveConfiguration(given, undefined, undefined);
  assert.ok('config' in withoutFolder && !('cwd' in withoutFolder.config), 'no folder open: no cwd');
});

test('an attach configuration and a program that is not a path are refused', () => {
  assert.match(problem({ type: 'abl', request: 'attach', name: 'x', program: FILE }, undefined), /"launch".*not "attach"/);
  assert.match(problem({ type: 'abl', request: 'launch', name: 'x', program: 3 }, undefined), /is a path \(a string\), not a number/);
});

test('another debugger\'s configuration is left alone', () => {
  const given = { type: 'python', request: 'launch', name: 'py' };
  assert.deepEqual(resolved(given, undefined), given);
});

test('the command\'s configuration names the file and the agent', () => {
  assert.deepEqual(configurationFor(FILE, 'Offer_Agent'), { type: 'abl', request: 'launch', name: 'Debug Offer_Agent', program: FILE, agent: 'Offer_Agent' });
  assert.deepEqual(configurationFor(FILE, undefined), { type: 'abl', request: 'launch', name: 'Debug ABL agent', program: FILE });
});

test('after variables are substituted, the paths must exist', () => {
  const there = new Set([FILE, path.join(FOLDER, 'mocks.yaml')]);
  const exists = (file: string) => there.has(file);
  assert.equal(checkPaths({ type: 'abl', name: 'x', program: FILE, mocks: 'mocks.yaml', cwd: FOLDER }, exists), undefined);
  assert.match(checkPaths({ type: 'abl', name: 'x', program: path.join(FOLDER, 'gone.abl') }, exists) ?? '', /"program" .*gone\.abl, which does not exist/);
  assert.match(checkPaths({ type: 'abl', name: 'x', program: FILE, script: 'turns.txt', cwd: FOLDER }, exists) ?? '', /"script" .*turns\.txt, which does not exist/);
  assert.match(checkPaths({ type: 'abl', name: 'x', program: '${file}' }, exists) ?? '', /that variable has no value here/);
  assert.match(checkPaths({ type: 'abl', name: 'x', program: FILE, mocks: ['a'] }, exists) ?? '', /"mocks" .* not a list/);
  assert.equal(checkPaths({ type: 'abl', name: 'x', program: 'relative.abl' }, exists), undefined, 'without a cwd a relative path is left to abl dap');
  assert.equal(checkPaths({ type: 'node', program: '/nowhere' }, exists), undefined);
});
