import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { isCleanExit } from '../../src/server/exitMessage';

test('a clean exit of the server is not an error', () => {
  assert.equal(isCleanExit('Server process exited with code 0.'), true);
});

test('a failed or killed server still is', () => {
  assert.equal(isCleanExit('Server process exited with code 1.'), false);
  assert.equal(isCleanExit('Server process exited with code 10.'), false);
  assert.equal(isCleanExit('Server process exited with signal SIGKILL.'), false);
  assert.equal(isCleanExit('Connection to server got closed. Server will not be restarted.'), false);
});
