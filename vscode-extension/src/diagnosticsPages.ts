/** Whether a path is a page of the diagnostics catalogue (`…/docs/diagnostics/CODE.md`), the
 * target of a diagnostic's code link. */
export function isDiagnosticsPage(path: string): boolean {
  return /\/docs\/diagnostics\/[A-Za-z0-9_]+\.md$/.test(path);
}
