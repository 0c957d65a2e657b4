import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { expandPath } from '../../src/variables';

test('workspace folder, home and tilde are expanded', () => {
  assert.equal(expandPath('${workspaceFolder}/.venv/bin/abl', '/w', '/home/u'), '/w/.venv/bin/abl');
  assert.equal(expandPath('~/py/bin/python3', '/w', '/home/u'), '/home/u/py/bin/python3');
  assert.equal(expandPath('${userHome}/python', undefined, '/home/u'), '/home/u/python');
  assert.equal(expandPath(' /usr/bin/python3 ', '/w', '/home/u'), '/usr/bin/python3');
});

test('without a workspace folder the variable is left as written', () => {
  assert.equal(expandPath('${workspaceFolder}/abl', undefined, '/home/u'), '${workspaceFolder}/abl');
});
