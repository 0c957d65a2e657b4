import { FrameLocator, Locator, Page } from 'playwright-core';

/** Waits long enough for the language server on a busy 2-core machine, never longer. */
export const SERVER_TIMEOUT_MS = 60_000;
const UI_TIMEOUT_MS = 15_000;

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

  /** Runs a command from the palette by its title. */
  async command(title: string): Promise<void> {
    await this.page.keyboard.press('F1');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await input.fill(`>${title}`);
    await this.page.locator('.quick-input-list .monaco-list-row.focused', { hasText: title }).waitFor({ timeout: UI_TIMEOUT_MS });
    await this.page.keyboard.press('Enter');
  }

  /** Opens a workspace file with Quick Open and waits until its editor is the active one. */
  async open(fileName: string): Promise<void> {
    await this.page.keyboard.press('Control+P');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await input.fill(fileName);
    // Enter opens the focused row, which is the file only once the list has been filtered.
    await this.page.locator(`.quick-input-list .monaco-list-row.focused[aria-label*="${fileName}"]`).waitFor({ timeout: UI_TIMEOUT_MS });
    await this.page.keyboard.press('Enter');
    await this.activeTab(fileName).waitFor({ timeout: UI_TIMEOUT_MS });
    await this.editor.locator('.view-lines').waitFor({ timeout: UI_TIMEOUT_MS });
  }

  /** The page of the visible webview: VS Code nests it two iframes deep. */
  webview(): FrameLocator {
    return this.page.frameLocator('iframe.webview.ready >> visible=true').frameLocator('iframe#active-frame');
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
  async cursorAt(line: number, column?: number): Promise<void> {
    const text = column === undefined ? `Ln ${line},` : `Ln ${line}, Col ${column}`;
    await this.page.locator('.statusbar-item', { hasText: text }).first().waitFor({ timeout: UI_TIMEOUT_MS });
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
