/**
 * Text bound for a terminal: every control character written out, so nothing a card or a server
 * holds can move the cursor, clear the screen or reorder what is shown. A leaf
 * module: the CLI's views, errors and --debug, and the server's text log, all escape through it.
 */
/**
 * Characters a terminal acts on rather than shows: C0 (newlines too: a view prints its own line
 * breaks, never the data's), DEL, C1 (U+009B is a CSI on its own) and the bidi controls that
 * reorder what follows (U+061C, U+200E/F, U+202A–202E, U+2066–2069). Card data is anyone's.
 * Written once without C0, which JSON.stringify escapes itself (terminalJson).
 */
const BEYOND_C0 = '\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
const TERMINAL_UNSAFE = new RegExp(`[\\u0000-\\u001f${BEYOND_C0}]`, 'g');

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `c` as \uHHHH, an escape both JavaScript and JSON read back. */
const unicodeEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` with every terminal control written out as \n, \r, \t, \xHH or \uHHHH. */
export function escapeTerminal(text: string): string {
  return text.replace(TERMINAL_UNSAFE, (c) => {
    const named = NAMED[c];
    if (named) return named;
    const n = c.charCodeAt(0);
    return n < 0x100 ? `\\x${n.toString(16).padStart(2, '0')}` : unicodeEscape(c);
  });
}

/** The terminal controls JSON.stringify leaves as they are (it escapes C0 itself). */
const JSON_UNSAFE = new RegExp(`[${BEYOND_C0}]`, 'g');

/**
 * `value` as JSON that a terminal shows as it is: JSON.stringify escapes C0, and the other
 * controls (DEL, C1, bidi) are written as \uHHHH too, which JSON reads back the same. They can
 * only stand inside strings, so the replace never touches the document's own structure (its
 * indentation's line breaks included).
 */
export function terminalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(JSON_UNSAFE, unicodeEscape);
}
