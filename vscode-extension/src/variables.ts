/** The few variables settings that hold paths may use: `${workspaceFolder}`, `${userHome}`, `~`. */

export function expandPath(value: string, workspaceFolder: string | undefined, home: string): string {
  let expanded = value.trim();
  if (expanded === '~' || expanded.startsWith('~/') || expanded.startsWith('~\\')) {
    expanded = home + expanded.slice(1);
  }
  expanded = expanded.replace(/\$\{userHome\}/g, home);
  if (workspaceFolder !== undefined) {
    expanded = expanded.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
  }
  return expanded;
}
