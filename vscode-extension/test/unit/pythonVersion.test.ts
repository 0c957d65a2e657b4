import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSupported, parseProbeOutput } from '../../src/pythonVersion';

test('the probe output gives the executable and the version', () => {
  assert.deepEqual(parseProbeOutput('/usr/bin/python3.11\n3.11.7\n'), { executable: '/usr/bin/python3.11', version: '3.11.7' });
  assert.deepEqual(parseProbeOutput('C:\\Python312\\python.exe\r\n3.12.1\r\n'), { executable: 'C:\\Python312\\python.exe', version: '3.12.1' });
});

test('output that is not the probe answer is rejected', () => {
  assert.equal(parseProbeOutput(''), undefined);
  assert.equal(parseProbeOutput('Python was not found; run without arguments to install from the Microsoft Store\n'), undefined);
});

test('Python 3.10 is the oldest supported version', () => {
  assert.equal(isSupported('3.10.0'), true);
  assert.equal(isSupported('3.13.0'), true);
  assert.equal(isSupported('4.0.0'), true);
  assert.equal(isSupported('3.9.18'), false);
  assert.equal(isSupported('2.7.18'), false);
});
