/** The extension's language id. Not `abl`: OpenEdge ABL extensions contribute that id, and two
 * contributions of one id merge into one language. */
export const LANGUAGE_ID = 'abl-agent';
