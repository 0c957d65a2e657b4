/** Python versions, as the probe script prints them, and the oldest one the server runs on. */

export const MINIMUM_PYTHON: readonly [number, number] = [3, 10];

/** Printed by the interpreter under test: its real executable, then its version. */
export const PROBE_SCRIPT = 'import sys; print(sys.executable); print("%d.%d.%d" % sys.version_info[:3])';

export interface ProbeResult {
  readonly executable: string;
  readonly version: string;
}

export function parseProbeOutput(stdout: string): ProbeResult | undefined {
  const [executable, version] = stdout.trim().split(/\r?\n/).map((line) => line.trim());
  if (!executable || !version || !/^\d+\.\d+\.\d+$/.test(version)) {
    return undefined;
  }
  return { executable, version };
}

export function isSupported(version: string): boolean {
  const [major, minor] = version.split('.').map(Number);
  return major > MINIMUM_PYTHON[0] || (major === MINIMUM_PYTHON[0] && minor >= MINIMUM_PYTHON[1]);
}
