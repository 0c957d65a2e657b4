// Every snippet, expanded with its defaults, is ABL the checker accepts without an error.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(__dirname, '../../..');
const snippets: Record<string, { body: string[] }> = JSON.parse(fs.readFileSync(path.join(root, 'snippets/abl-agent.code-snippets'), 'utf8'));

/** A snippet body as inserted when every placeholder keeps its default (a choice: its first). */
function expand(name: string, indent = ''): string {
  return snippets[name].body
    .map((line) => indent + line)
    .join('\n')
    .replace(/\$\{\d+\|([^,|]*)[^}]*\}/g, '$1')
    .replace(/\$\{\d+:([^}]*)\}/g, '$1')
    .replace(/\$\d+/g, '');
}

/** A project made of every snippet, each where it belongs. */
function projectOfSnippets(): string {
  const agent = (name: string, field: string) =>
    expand('Agent')
      .replace('Agent_Name', name)
      .replaceAll('field_name', field)
      .replace('GATHER:', `GATHER:\n${expand('Gather field', '  ').replace('field_name', `${field}_note`)}`);
  return [
    expand('Supervisor'),
    expand('Returnable route', '  '),
    expand('Permanent route', '  ').replace('WHEN: condition', 'WHEN: parent_variable IS SET'),
    `  - TO: Target_Agent\n    WHEN: intent.category == "other"\n${expand('HISTORY block', '    ')}`,
    'RETURN_HANDLERS:',
    expand('Return handler', '  '),
    agent('Target_Agent', 'target_field'),
    agent('Child_Agent', 'child_field'),
  ].join('\n');
}

test('the snippets, expanded with their defaults, make a project without errors', () => {
  const project = projectOfSnippets();
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'abl-snippets-'));
  try {
    fs.writeFileSync(path.join(folder, 'snippets.agent.abl'), project);
    const python = process.env.PYTHON ?? 'python3';
    const report = JSON.parse(
      execFileSync(python, ['-m', 'abl', 'check', '--format', 'json', folder], {
        env: { ...process.env, PYTHONPATH: path.join(root, 'bundled/libs') },
        encoding: 'utf8',
      }),
    );
    const errors = report.diagnostics.filter((d: { severity: string }) => d.severity === 'error');
    assert.deepEqual(errors, [], `${project}\n\nerrors: ${JSON.stringify(errors, null, 2)}`);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
});
