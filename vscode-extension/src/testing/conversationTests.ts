import { spawn } from 'child_process';
import * as path from 'path';
import * as vscode from 'vscode';
import { LANGUAGE_ID } from '../language';
import { ServerController } from '../server/controller';
import { collectArguments, FileRecord, failureMessages, RecordReader, ResultRecord, runGroups, TestRecord, testArguments } from './testRecords';

const TEST_FILES = '**/*.abltest.yaml';
const SKIPPED_FOLDERS = '**/{node_modules,.git,.venv}/**';
/** A burst of changes to one file (a save, a formatter after it) is read once. */
const COLLECT_DELAY_MS = 300;

/** How one `abl test` process ended. */
interface Outcome {
  readonly code: number | null;
  readonly stderr: string;
  /** Records of this kind came: the process said what went wrong itself. */
  readonly reported: ReadonlySet<TestRecord['type']>;
}

/** The Testing view's "ABL Conversation Tests": every `*.abltest.yaml` of the workspace as a test
 * item, each test inside it as a child placed at its `- name:` line. Tests are listed and run by
 * the `abl` the language server runs (`abl test --collect-only` and `abl test --format json`),
 * so they behave as on the command line; a failure is shown at the line of the check that
 * failed, in the turn it belongs to. The list follows the files as they change on disk. */
export class ConversationTests implements vscode.Disposable {
  private readonly controller = vscode.tests.createTestController('abl.conversationTests', 'ABL Conversation Tests');
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly waiting = new Map<string, NodeJS.Timeout>();

  constructor(private readonly server: ServerController) {
    this.controller.refreshHandler = () => this.collectAll();
    this.controller.createRunProfile('Run', vscode.TestRunProfileKind.Run, (request, token) => this.run(request, token), true);
    const watcher = vscode.workspace.createFileSystemWatcher(TEST_FILES);
    this.subscriptions.push(
      this.controller,
      watcher,
      watcher.onDidCreate((uri) => this.collectSoon(uri)),
      watcher.onDidChange((uri) => this.collectSoon(uri)),
      watcher.onDidDelete((uri) => this.controller.items.delete(uri.toString())),
    );
    void this.collectAll();
  }

  dispose(): void {
    this.waiting.forEach((timer) => clearTimeout(timer));
    this.subscriptions.forEach((subscription) => subscription.dispose());
  }

  /** Lists every test file of the workspace, and the tests in each (the `abl` may have changed:
   * this is also the view's refresh). */
  async collectAll(): Promise<void> {
    const found = await vscode.workspace.findFiles(TEST_FILES, SKIPPED_FOLDERS);
    const ids = new Set(found.map((uri) => uri.toString()));
    this.controller.items.forEach((item) => {
      if (!ids.has(item.id)) {
        this.controller.items.delete(item.id);
      }
    });
    found.forEach((uri) => this.fileItem(uri));
    await this.collect(found);
  }

  private collectSoon(uri: vscode.Uri): void {
    const key = uri.toString();
    clearTimeout(this.waiting.get(key));
    this.waiting.set(
      key,
      setTimeout(() => {
        this.waiting.delete(key);
        this.fileItem(uri);
        void this.collect([uri]);
      }, COLLECT_DELAY_MS),
    );
  }

  private async collect(files: readonly vscode.Uri[]): Promise<void> {
    if (files.length === 0) {
      return;
    }
    const answered = new Set<string>();
    const outcome = await this.abl(collectArguments(files.map((uri) => uri.fsPath)), path.dirname(files[0].fsPath), (record) => {
      if (record.type !== 'file' && record.type !== 'fileError') {
        return;
      }
      const item = this.controller.items.get(vscode.Uri.file(record.path).toString());
      if (item === undefined) {
        return;
      }
      answered.add(item.id);
      if (record.type === 'file') {
        item.error = undefined;
        this.syncTests(item, record);
      } else if (record.type === 'fileError') {
        item.error = `Line ${record.line ?? '?'}: ${record.message}`;
        item.children.replace([]);
      }
    });
    // Files the process said nothing about: it could not run at all.
    for (const uri of files) {
      const item = this.controller.items.get(uri.toString());
      if (item !== undefined && !answered.has(item.id)) {
        item.error = `The tests cannot be listed: ${outcome.stderr.trim() || `abl test exited with ${outcome.code}`}`;
      }
    }
  }

  private fileItem(uri: vscode.Uri): vscode.TestItem {
    const existing = this.controller.items.get(uri.toString());
    if (existing !== undefined) {
      return existing;
    }
    const item = this.controller.createTestItem(uri.toString(), vscode.workspace.asRelativePath(uri), uri);
    this.controller.items.add(item);
    return item;
  }

  /** The tests of a file as listed, keeping the items that still exist (a run in progress
   * reports on them). */
  private syncTests(file: vscode.TestItem, record: FileRecord): void {
    const tests = record.tests.map((test) => {
      const id = `${file.id}::${test.name}`;
      const item = file.children.get(id) ?? this.controller.createTestItem(id, test.name, file.uri);
      item.range = new vscode.Range(test.line - 1, 0, test.line - 1, 0);
      item.sortText = String(test.line).padStart(8, '0'); // in the order of the file
      // No description: the Testing view reads it out in place of the name.
      return item;
    });
    file.children.replace(tests);
  }

  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.controller.createTestRun(request, 'ABL conversation tests');
    try {
      await saveDocuments();
      for (const group of runGroups(this.chosen(request))) {
        if (token.isCancellationRequested) {
          break;
        }
        await this.runFiles(run, group.files, group.names, token);
      }
    } finally {
      run.end();
    }
  }

  /** The files to run, each with the names of its chosen tests (undefined: all of them). */
  private chosen(request: vscode.TestRunRequest): Map<vscode.TestItem, string[] | undefined> {
    const excluded = new Set((request.exclude ?? []).map((item) => item.id));
    const chosen = new Map<vscode.TestItem, string[] | undefined>();
    const included: vscode.TestItem[] = [];
    if (request.include === undefined) {
      this.controller.items.forEach((item) => included.push(item));
    } else {
      included.push(...request.include);
    }
    for (const item of included) {
      if (excluded.has(item.id)) {
        continue;
      }
      const file = item.parent ?? item;
      const tests: vscode.TestItem[] = [];
      file.children.forEach((test) => tests.push(test));
      const names = item.parent === undefined ? tests.filter((test) => !excluded.has(test.id)).map((test) => test.label) : [item.label];
      const whole = item.parent === undefined && names.length === tests.length;
      if (!whole && names.length === 0) {
        continue; // every test of the file is excluded
      }
      const before = chosen.get(file);
      if (chosen.has(file) && before === undefined) {
        continue; // already the whole file
      }
      chosen.set(file, whole ? undefined : [...new Set([...(before ?? []), ...names])]);
    }
    return chosen;
  }

  /** Runs `files` in one `abl test` process (only the tests called `names`, if given); each
   * record names its file, so results land on their items as they come. */
  private async runFiles(run: vscode.TestRun, files: readonly vscode.TestItem[], names: readonly string[] | undefined, token: vscode.CancellationToken): Promise<void> {
    const byUri = new Map(files.map((file) => [(file.uri as vscode.Uri).toString(), file]));
    const fileOf = (recordPath: string) => byUri.get(vscode.Uri.file(recordPath).toString());
    const item = (file: vscode.TestItem, name: string) => file.children.get(`${file.id}::${name}`);
    const at = (file: vscode.TestItem, line: number) => new vscode.Location(file.uri as vscode.Uri, new vscode.Position(Math.max(line - 1, 0), 0));
    const pending = new Set<vscode.TestItem>();
    for (const file of files) {
      file.children.forEach((test) => {
        if (names === undefined || names.includes(test.label)) {
          pending.add(test);
          run.enqueued(test);
        }
      });
    }
    const erred = new Set<vscode.TestItem>();
    const paths = files.map((file) => (file.uri as vscode.Uri).fsPath);
    const outcome = await this.abl(
      testArguments(paths, names),
      path.dirname(paths[0]),
      (record) => {
        if (record.type === 'summary') {
          const where = files.length === 1 ? vscode.workspace.asRelativePath(files[0].uri as vscode.Uri) : `${files.length} files`;
          run.appendOutput(`${where}: ${record.text}\r\n`);
          return;
        }
        const file = fileOf(record.path);
        if (file === undefined) {
          return;
        }
        switch (record.type) {
          case 'file':
            file.error = undefined;
            this.syncTests(file, record);
            return;
          case 'fileError':
            erred.add(file);
            file.error = `Line ${record.line ?? '?'}: ${record.message}`;
            run.errored(file, Object.assign(new vscode.TestMessage(record.message), { location: at(file, record.line ?? 1) }));
            return;
          case 'started': {
            const test = item(file, record.name);
            if (test !== undefined) {
              run.started(test);
            }
            return;
          }
          case 'result': {
            const test = item(file, record.name);
            if (test !== undefined) {
              pending.delete(test);
              this.report(run, test, record, (line) => at(file, line));
            }
            return;
          }
        }
      },
      token,
      (line) => run.appendOutput(`${line}\r\n`),
    );
    if (outcome.code === 2 && erred.size > 0 && erred.size < files.length && !token.isCancellationRequested) {
      // `abl test` runs nothing while a file cannot be read (as pytest does on a collection
      // error): the files it could read run again without the ones it could not.
      const rest = files.filter((file) => !erred.has(file));
      rest.forEach((file) => file.children.forEach((test) => pending.delete(test)));
      pending.forEach((test) => run.skipped(test));
      return this.runFiles(run, rest, names, token);
    }
    if (outcome.code !== 0 && outcome.code !== 1) {
      // The process could not do its work (no Python, a crash, a bad argument): say so on each
      // file it did not report an error of its own for.
      const message = outcome.stderr.trim() || `abl test exited with ${outcome.code}`;
      files.filter((file) => !erred.has(file)).forEach((file) => run.errored(file, new vscode.TestMessage(message)));
    }
    pending.forEach((test) => run.skipped(test)); // cancelled, or never reached
  }

  private report(run: vscode.TestRun, test: vscode.TestItem, result: ResultRecord, at: (line: number) => vscode.Location): void {
    const messages = failureMessages(result).map((failure) => {
      const message =
        failure.expected !== undefined && failure.actual !== undefined
          ? vscode.TestMessage.diff(failure.text, failure.expected, failure.actual)
          : new vscode.TestMessage(failure.text);
      message.location = at(failure.line);
      return message;
    });
    if (result.report) {
      run.appendOutput(result.report.replace(/\r?\n/g, '\r\n'), at(result.line), test);
    }
    switch (result.status) {
      case 'passed':
        return run.passed(test, result.durationMs);
      case 'skipped':
        return run.skipped(test);
      case 'failed':
        return run.failed(test, messages, result.durationMs);
      case 'error':
        return run.errored(test, messages, result.durationMs);
    }
  }

  /** Runs `abl` with `args` and hands over each record as it is printed. */
  private async abl(
    args: string[],
    cwd: string,
    onRecord: (record: TestRecord) => void,
    token?: vscode.CancellationToken,
    onOtherLine?: (line: string) => void,
  ): Promise<Outcome> {
    const command = await this.server.ablCommand();
    if ('message' in command) {
      return { code: null, stderr: command.message, reported: new Set() };
    }
    const reported = new Set<TestRecord['type']>();
    return new Promise<Outcome>((resolve) => {
      // UTF-8 whatever the platform's console encoding: names and replies may be in any script.
      const child = spawn(command.executable, [...command.args, ...args], { cwd, env: { ...process.env, ...command.env, PYTHONUTF8: '1' } });
      const reader = new RecordReader(
        (record) => {
          reported.add(record.type);
          onRecord(record);
        },
        (line) => onOtherLine?.(line),
      );
      let stderr = '';
      const cancelled = token?.onCancellationRequested(() => child.kill());
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => reader.push(chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', (error) => {
        cancelled?.dispose();
        resolve({ code: null, stderr: `cannot run ${command.executable}: ${error.message}`, reported });
      });
      child.on('close', (code) => {
        cancelled?.dispose();
        reader.end();
        resolve({ code, stderr, reported });
      });
    });
  }
}

/** Tests run from the files on disk: the ABL files and test files being edited are saved first. */
async function saveDocuments(): Promise<void> {
  const dirty = vscode.workspace.textDocuments.filter((doc) => doc.isDirty && (doc.languageId === LANGUAGE_ID || doc.uri.fsPath.endsWith('.abltest.yaml')));
  await Promise.all(dirty.map((doc) => doc.save()));
}
