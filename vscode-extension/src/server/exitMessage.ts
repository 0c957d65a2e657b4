/** Whether a message of the language client reports the server process ending cleanly (exit
 * code 0, as after `shutdown` and `exit`): ordinary, not an error. */
export function isCleanExit(message: string): boolean {
  return /^Server process exited with code 0\.?$/.test(message.trim());
}
