import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDiagnosticsPage } from '../../src/diagnosticsPages';

test('code links to the catalogue pages are served read-only; other links are left alone', () => {
  assert.equal(isDiagnosticsPage('/home/u/.vscode/extensions/abl/bundled/libs/abl/docs/diagnostics/E330.md'), true);
  assert.equal(isDiagnosticsPage('/c:/Users/u/abl/docs/diagnostics/UNKNOWN_HANDOFF_RETURN_FIELD.md'), true);
  assert.equal(isDiagnosticsPage('/home/u/project/docs/notes.md'), false);
  assert.equal(isDiagnosticsPage('/home/u/docs/diagnostics/../../secret.md'), false);
});
