import { Frame, FrameLocator, Locator, Page } from 'playwright-core';

/** Waits long enough for the language server on a busy 2-core machine, never longer. */
export const SERVER_TIMEOUT_MS = 60_000;
const UI_TIMEOUT_MS = 15_000;
const QUICK_INPUT_TIMEOUT_MS = 5_000;
const QUICK_INPUT_ATTEMPTS = 5;

/** The VS Code workbench in the page, driven the way a user drives it: keyboard and clicks. */
export class Workbench {
  constructor(readonly page: Page) {}

  /** The active editor (the one with focus in the active group). */
  get editor(): Locator {
    return this.page.locator('.editor-group-container.active .editor-instance .monaco-editor').first();
  }

  get problems(): Locator {
    return this.page.locator('.markers-panel .monaco-list-row');
  }

  async waitUntilLoaded(): Promise<void> {
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await this.page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 60_000 });
  }

  /** Opens a quick input with `key`, types `text` and waits for `row` to be the focused row.
   * A webview that takes the focus as it loads (a panel coming back into view) closes the quick
   * input: then it is opened again. */
  private async quickInput(key: string, text: string, row: Locator): Promise<void> {
    const input = this.page.locator('.quick-input-widget input');
    for (let attempt = 1; ; attempt++) {
      try {
        await this.page.keyboard.press(key);
        await input.waitFor({ state: 'visible', timeout: QUICK_INPUT_TIMEOUT_MS });
        await input.fill(text);
        await row.waitFor({ timeout: QUICK_INPUT_TIMEOUT_MS });
        if (await input.isVisible()) {
          return;
        }
      } catch (error) {
        if (attempt === QUICK_INPUT_ATTEMPTS) {
          throw error;
        }
      }
    }
  }

  /** Runs a command from the palette by its title. */
  async command(title: string): Promise<void> {
    await this.quickInput('F1', `>${title}`, this.page.locator('.quick-input-list .monaco-list-row.focused', { hasText: title }));
    await this.page.keyboard.press('Enter');
  }

  /** Opens a workspace file with Quick Open and waits until its editor is the active one. */
  async open(fileName: string): Promise<void> {
    // Enter opens the focused row, which is the file only once the list has been filtered.
    await this.quickInput('Control+P', fileName, this.page.locator(`.quick-input-list .monaco-list-row.focused[aria-label*="${fileName}"]`));
    await this.page.keyboard.press('Enter');
    await this.activeTab(fileName).waitFor({ timeout: UI_TIMEOUT_MS });
    await this.editor.locator('.view-lines').waitFor({ timeout: UI_TIMEOUT_MS });
  }

  /** Opens a file by its absolute path with File: Open File… (VS Code's own path dialog in the
   * browser): unlike Quick Open, it does not depend on the file search having seen a file that
   * was created on disk a moment ago. */
  async openPath(absolutePath: string): Promise<void> {
    const fileName = absolutePath.split('/').pop() ?? absolutePath;
    const input = this.page.locator('.quick-input-widget input');
    for (let attempt = 1; ; attempt++) {
      try {
        await this.page.keyboard.press('Control+O'); // File: Open File… (a palette search may pick another)
        await input.waitFor({ state: 'visible', timeout: QUICK_INPUT_TIMEOUT_MS });
        // The dialog writes its starting folder into the input once it has read it: a path typed
        // before that is replaced.
        for (const deadline = Date.now() + QUICK_INPUT_TIMEOUT_MS; (await input.inputValue()) === ''; ) {
          if (Date.now() > deadline) {
            throw new Error('the Open File dialog shows no folder');
          }
          await this.page.waitForTimeout(100);
        }
        await input.fill(absolutePath);
        await this.page.locator('.quick-input-list .monaco-list-row', { hasText: fileName }).first().waitFor({ timeout: QUICK_INPUT_TIMEOUT_MS });
        await this.page.keyboard.press('Enter');
        await this.activeTab(fileName).waitFor({ timeout: QUICK_INPUT_TIMEOUT_MS });
        break;
      } catch (error) {
        await this.page.keyboard.press('Escape');
        if (attempt === QUICK_INPUT_ATTEMPTS) {
          throw error;
        }
        // The keys may have gone to a view that had the focus (a console, a widget left open by
        // the step before): give it back to the editor before trying again.
        await this.page.keyboard.press('Escape');
        const lines = this.editor.locator('.view-lines').first();
        if ((await lines.count()) > 0) {
          await lines.click({ timeout: UI_TIMEOUT_MS });
        }
      }
    }
    await this.editor.locator('.view-lines').waitFor({ timeout: UI_TIMEOUT_MS });
  }

  /** The page of the visible webview: VS Code nests it two iframes deep. */
  webview(): FrameLocator {
    return this.page.frameLocator('iframe.webview.ready >> visible=true').frameLocator('iframe#active-frame');
  }

  /** The page of the webview that shows `selector` (`#message` is the Run Agent panel, `#graph`
   * the ABL Graph view), for when several webviews are on screen. Ask again after the webview
   * reloads: a frame does not outlive its page. */
  async webviewWith(selector: string, timeoutMs = UI_TIMEOUT_MS): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const frame of this.page.frames()) {
        if (!frame.isDetached() && (await frame.locator(selector).count().catch(() => 0)) > 0) {
          return frame;
        }
      }
      if (Date.now() > deadline) {
        throw new Error(`no webview shows ${selector}`);
      }
      await this.page.waitForTimeout(100);
    }
  }

  /** A row of the Testing view's tree, by the label VS Code reads out: `name (State)`. */
  testRow(label: string, state?: 'Passed' | 'Failed' | 'Errored' | 'Skipped'): Locator {
    const text = state === undefined ? label : `${label} (${state})`;
    return this.page.locator(`.test-explorer .monaco-list-row[aria-label*="${text}"]`).first();
  }

  /** An editor tab (of a file or a panel) by its label. */
  tab(label: string): Locator {
    return this.page.locator(`.tab[aria-label*="${label}"]`).first();
  }

  activeTab(fileName: string): Locator {
    return this.page.locator(`.editor-group-container.active .tab.active[aria-label*="${fileName}"]`);
  }

  /** Puts the cursor at a 1-based line and column (Go to Line accepts `line:column`). */
  async goTo(line: number, column: number): Promise<void> {
    await this.editor.locator('.view-lines').click();
    await this.page.keyboard.press('Control+G');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await input.fill(`:${line}:${column}`); // the palette's `:` prefix is Go to Line
    await this.page.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
    await this.cursorAt(line, column);
  }

  /** Waits until the status bar shows the cursor at `line`, `column`. */
  async cursorAt(line: number, column?: number, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    const text = column === undefined ? `Ln ${line},` : `Ln ${line}, Col ${column}`;
    await this.page.locator('.statusbar-item', { hasText: text }).first().waitFor({ timeout: timeoutMs });
  }

  /** The rendered lines of the active editor that match `pattern` (write spaces as `\s`:
   * the editor renders them as no-break spaces). */
  line(pattern: RegExp): Locator {
    return this.editor.locator('.view-line', { hasText: pattern });
  }

  /** Shows the hover at the cursor (Ctrl+K Ctrl+I) and waits until it contains `text`. */
  async showHover(text: string): Promise<void> {
    await this.page.keyboard.press('Control+K');
    await this.page.keyboard.press('Control+I');
    await this.page.locator('.monaco-hover-content', { hasText: text }).first().waitFor();
  }

  /** The status bar item of the ABL language server, in a given state. */
  serverStatus(state: 'ready' | 'error' | 'starting' | 'indexing'): Locator {
    return this.page.locator(`.statusbar-item [aria-label="ABL language server: ${state}"], .statusbar-item[aria-label="ABL language server: ${state}"]`).first();
  }

  notification(text: string): Locator {
    return this.page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
  }

  /** The language shown in the status bar for the active editor. */
  languageIndicator(name: string): Locator {
    return this.page.locator('.statusbar-item', { hasText: name }).filter({ has: this.page.locator(`[aria-label*="${name}"]`) }).first();
  }

  async screenshot(path: string): Promise<void> {
    await this.page.screenshot({ path, animations: 'disabled' });
  }
}
