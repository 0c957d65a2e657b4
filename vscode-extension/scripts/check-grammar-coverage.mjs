// Fails when a scope the grammar can produce is asserted by no grammar test, so every rule of
// syntaxes/abl-agent.tmLanguage.json stays tested. usage: node scripts/check-grammar-coverage.mjs
import { readFileSync, readdirSync } from 'fs';
import { dirname, join } from 'path';
import { fileURLToPath } from 'url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const grammar = JSON.parse(readFileSync(join(root, 'syntaxes/abl-agent.tmLanguage.json'), 'utf8'));
const testsDir = join(root, 'test/grammar');

const produced = new Set();
(function collect(node) {
  if (Array.isArray(node)) {
    node.forEach(collect);
  } else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if ((key === 'name' || key === 'contentName') && typeof value === 'string' && node !== grammar) {
        value.split(/\s+/).forEach((scope) => produced.add(scope));
      } else {
        collect(value);
      }
    }
  }
})(grammar);

// Assertion lines: `#` then blanks, then `^` markers or `<-` arrows, then the scopes required
// (those after a lone `-` are excluded scopes, which do not count).
const asserted = new Set();
for (const file of readdirSync(testsDir).filter((name) => name.endsWith('.abl'))) {
  for (const line of readFileSync(join(testsDir, file), 'utf8').split(/\r?\n/)) {
    const match = /^#\s*(?:\^+|<~*-+)\s+(.*)$/.exec(line);
    if (match) {
      const [required] = ` ${match[1]} `.split(/\s-\s/);
      required.trim().split(/\s+/).filter(Boolean).forEach((scope) => asserted.add(scope));
    }
  }
}

const untested = [...produced].filter((scope) => !asserted.has(scope)).sort();
if (untested.length > 0) {
  console.error(`Scopes no grammar test asserts:\n  ${untested.join('\n  ')}`);
  process.exit(1);
}
console.log(`grammar coverage: all ${produced.size} scopes are asserted`);
