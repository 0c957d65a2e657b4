// Bundles with esbuild. usage: node scripts/build.mjs extension [--production] | tests
//   extension: dist/extension.js, and the example projects the walkthrough opens (dist/examples)
//   tests:     the unit tests and the end-to-end driver (dist/test)
import * as esbuild from 'esbuild';
import { cpSync, readdirSync, rmSync } from 'fs';
import { dirname, join } from 'path';
import { fileURLToPath } from 'url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [target = 'extension'] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const production = process.argv.includes('--production');
const WALKTHROUGH_EXAMPLES = ['loan-supervisor', 'silent-traps'];

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
};

async function buildExtension() {
  await esbuild.build({
    ...common,
    entryPoints: [join(root, 'src/extension.ts')],
    outfile: join(root, 'dist/extension.js'),
    external: ['vscode'],
    target: 'node18', // VS Code 1.82, the oldest supported, runs extensions on Node 18
  });
  const examples = join(root, 'dist/examples');
  rmSync(examples, { recursive: true, force: true });
  for (const name of WALKTHROUGH_EXAMPLES) {
    cpSync(join(root, '../examples', name), join(examples, name), { recursive: true });
  }
}

async function buildTests() {
  const unitTests = readdirSync(join(root, 'test/unit'))
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join(root, 'test/unit', name));
  await esbuild.build({
    ...common,
    entryPoints: [...unitTests, join(root, 'test/e2e/driver.ts')],
    outdir: join(root, 'dist/test'),
    outbase: join(root, 'test'),
    external: ['playwright-core'],
    target: 'node20',
  });
}

const targets = { extension: buildExtension, tests: buildTests };
if (!(target in targets)) {
  console.error(`unknown target ${target}: use ${Object.keys(targets).join(' or ')}`);
  process.exit(2);
}
await targets[target]();
