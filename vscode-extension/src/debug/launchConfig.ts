/** Debug configurations of type `abl` (what `abl dap` is launched with), filled in and checked
 * without VS Code, so that the rules are unit-tested. */
import * as path from 'path';
import { agentAt, agentHeaders, looksLikeAgentBlueprint } from '../agentHeaders';

export const DEBUG_TYPE = 'abl';

/** A launch configuration as VS Code hands it over: any JSON object. */
export type Configuration = { [key: string]: unknown };

/** The file of the active editor, as far as the configuration needs it. */
export interface ActiveFile {
  readonly path: string;
  /** Whether the editor shows it as an ABL document (language `abl-agent`). */
  readonly isAbl: boolean;
  readonly text: string;
  /** 0-based line of the cursor. */
  readonly cursorLine: number;
}

export type Resolution = { readonly config: Configuration } | { readonly problem: string };

/** The configuration that debugs `agent` of the file at `path`. */
export function configurationFor(path: string, agent: string | undefined): Configuration {
  const config: Configuration = { type: DEBUG_TYPE, request: 'launch', name: agent ? `Debug ${agent}` : 'Debug ABL agent', program: path };
  if (agent) {
    config.agent = agent;
  }
  return config;
}

/** The agent to debug in a file: the one whose block holds the cursor, else the file's first. */
export function agentToDebug(file: ActiveFile): string | undefined {
  return (agentAt(file.text, file.cursorLine) ?? agentHeaders(file.text)[0])?.name;
}

const NO_FILE =
  'There is no ABL file to debug: open an agent or supervisor (.abl) and press F5 again, or add a launch configuration of type "abl" with a "program" (the .abl file or the project folder).';

/** `resolveDebugConfiguration`: F5 without a launch.json gives an empty configuration, filled in
 * from the active ABL editor; a configuration without `program` gets the active file (and the
 * agent at its cursor, unless it names one). Without an ABL file to use, a problem to show. */
export function resolveConfiguration(given: Configuration, active: ActiveFile | undefined, folder: string | undefined): Resolution {
  const file = active !== undefined && isAblFile(active) ? active : undefined;
  const empty = given.type === undefined && given.request === undefined && given.name === undefined;
  if (empty) {
    if (file === undefined) {
      return { problem: NO_FILE };
    }
    // Ctrl+F5 adds `noDebug: true`, which is kept.
    return { config: withFolder({ ...given, ...configurationFor(file.path, agentToDebug(file)) }, folder) };
  }
  if (given.type !== undefined && given.type !== DEBUG_TYPE) {
    return { config: given }; // not ours: VS Code asks the extension of that type
  }
  const config: Configuration = { ...given, type: DEBUG_TYPE, request: given.request ?? 'launch' };
  if (config.request !== 'launch') {
    return { problem: `An "abl" debug configuration is a "launch" (abl dap runs the agent itself), not "${String(config.request)}".` };
  }
  const program = config.program;
  if (program === undefined || (typeof program === 'string' && program.trim() === '')) {
    if (file === undefined) {
      return { problem: `The debug configuration${nameOf(config)} has no "program", and no ABL file is open to debug instead. Set "program" to the .abl file or the project folder, for example "\${file}".` };
    }
    config.program = file.path;
    if (config.agent === undefined) {
      const agent = agentToDebug(file);
      if (agent !== undefined) {
        config.agent = agent;
      }
    }
  } else if (typeof program !== 'string') {
    return { problem: `"program" in the debug configuration${nameOf(config)} is a path (a string), not ${describe(program)}.` };
  }
  config.name = config.name ?? (typeof config.agent === 'string' ? `Debug ${config.agent}` : 'Debug ABL agent');
  return { config: withFolder(config, folder) };
}

/** `resolveDebugConfigurationWithSubstitutedVariables`: the paths, once `${file}` and the other
 * variables are replaced, must exist (`abl dap` would refuse them with less to go on). */
export function checkPaths(config: Configuration, exists: (file: string) => boolean): string | undefined {
  if (config.type !== DEBUG_TYPE) {
    return undefined;
  }
  for (const key of ['program', 'mocks', 'script']) {
    const value = config[key];
    if (value === undefined) {
      continue;
    }
    if (typeof value !== 'string') {
      return `"${key}" in the debug configuration${nameOf(config)} is a path (a string), not ${describe(value)}.`;
    }
    if (value.includes('${')) {
      return `"${key}" in the debug configuration${nameOf(config)} is ${value}: that variable has no value here.`;
    }
    const cwd = typeof config.cwd === 'string' ? config.cwd : undefined;
    const full = path.isAbsolute(value) ? value : cwd !== undefined ? path.resolve(cwd, value) : undefined;
    if (full !== undefined && !exists(full)) {
      return `"${key}" in the debug configuration${nameOf(config)} is ${value}, which does not exist.`;
    }
  }
  return undefined;
}

function isAblFile(file: ActiveFile): boolean {
  return file.isAbl && looksLikeAgentBlueprint(file.text);
}

/** Relative paths in the configuration (`mocks`, `script`) are read from the workspace folder. */
function withFolder(config: Configuration, folder: string | undefined): Configuration {
  return folder !== undefined && config.cwd === undefined ? { ...config, cwd: folder } : config;
}

function nameOf(config: Configuration): string {
  return typeof config.name === 'string' && config.name ? ` "${config.name}"` : '';
}

function describe(value: unknown): string {
  return Array.isArray(value) ? 'a list' : value === null ? 'null' : `a ${typeof value}`;
}
