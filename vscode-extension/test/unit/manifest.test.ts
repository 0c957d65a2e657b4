// The manifest, the READMEs and the files they point at agree with each other.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(__dirname, '../../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const contributes = manifest.contributes;

test('every setting is documented in both READMEs', () => {
  const settings = Object.keys(contributes.configuration.properties);
  for (const readme of ['README.md', '../README.md']) {
    const text = fs.readFileSync(path.join(root, readme), 'utf8');
    const missing = settings.filter((setting) => !text.includes(`\`${setting}\``));
    assert.deepEqual(missing, [], `${readme} does not document ${missing.join(', ')}`);
  }
});

test('every command is contributed with a title and documented in the README', () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const hidden = new Set(contributes.menus.commandPalette.filter((m: { when: string }) => m.when === 'false').map((m: { command: string }) => m.command));
  for (const command of contributes.commands) {
    assert.ok(command.title, `${command.command} has no title`);
    if (!hidden.has(command.command)) {
      assert.ok(readme.includes(`${command.category}: ${command.title}`), `README.md does not mention "${command.category}: ${command.title}"`);
    }
  }
});

test('the files the manifest points at exist', () => {
  const paths = [
    manifest.icon,
    ...contributes.languages.flatMap((l: { configuration: string; icon: { light: string; dark: string } }) => [l.configuration, l.icon.light, l.icon.dark]),
    ...contributes.grammars.map((g: { path: string }) => g.path),
    ...contributes.walkthroughs.flatMap((w: { steps: { media: { markdown: string } }[] }) => w.steps.map((s) => s.media.markdown)),
    ...Object.values(contributes.viewsContainers).flatMap((containers) => (containers as { icon: string }[]).map((c) => c.icon)),
  ];
  for (const p of paths) {
    assert.ok(fs.existsSync(path.join(root, p)), `${p} does not exist`);
  }
});

test('the language id is our own, not the OpenEdge one', () => {
  assert.deepEqual(contributes.languages.map((l: { id: string }) => l.id), ['abl-agent']);
});

test('every view sits in a contributed container, and the files it needs are packaged', () => {
  const containers = new Set(Object.values(contributes.viewsContainers).flatMap((list) => (list as { id: string }[]).map((c) => c.id)));
  const ignore = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8');
  for (const [container, views] of Object.entries(contributes.views)) {
    assert.ok(containers.has(container) || ['explorer', 'scm', 'debug', 'test'].includes(container), `${container} is not a view container`);
    for (const view of views as { id: string }[]) {
      assert.ok(manifest.activationEvents.includes(`onView:${view.id}`), `nothing activates the extension for ${view.id}`);
    }
  }
  for (const [, list] of Object.entries(contributes.viewsContainers)) {
    for (const { icon } of list as { icon: string }[]) {
      assert.ok(ignore.includes(`!${icon}`), `.vscodeignore leaves ${icon} out of the package`);
    }
  }
});

test('a folder of plain .abl files starts the extension before one is opened', () => {
  assert.ok(manifest.activationEvents.includes('workspaceContains:**/*.abl'));
});
