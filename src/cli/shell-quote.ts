/**
 * A value quoted for a POSIX shell (XCU 2.2 Quoting), for the commands a hint suggests, which a
 * person pastes. Printable text is single-quoted (as is when no character of it means anything
 * to a shell). Text with a character a terminal acts on (core/terminal-text.ts) cannot be shown
 * as it is, and its escaped form would paste as other text: it is written as printf of its
 * UTF-8 bytes (XCU printf: `\ddd` octal escapes), printable ASCII that a shell turns back into
 * the same bytes. Command substitution drops trailing line breaks (XCU 2.6.3), a lone
 * surrogate has no UTF-8 bytes and an argument cannot hold U+0000 (core/encoding.ts
 * isPortableText): such text has no form to paste, and the hint says so.
 */
import { isPortableText } from '../core/encoding.js';
import { escapeTerminal } from '../core/terminal-text.js';

const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** `'text'`, a single quote written as `'\''` (a quote can never appear inside quotes). */
const singleQuoted = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * printf's format for exactly `text`'s bytes: `\\` and `%` doubled, what a terminal acts on as
 * its UTF-8 bytes in octal, the rest as it is.
 */
function printfFormat(text: string): string {
  let format = '';
  for (const c of text) {
    if (c === '\\') format += '\\\\';
    else if (c === '%') format += '%%';
    else if (escapeTerminal(c) === c) format += c;
    else
      for (const byte of Buffer.from(c, 'utf8')) format += `\\${byte.toString(8).padStart(3, '0')}`;
  }
  return format;
}

/** `text` as one shell word that gives back exactly `text`, or a note that none can. */
export function shellQuote(text: string): string {
  if (PLAIN.test(text)) return text;
  if (escapeTerminal(text) === text) return singleQuoted(text);
  if (text.endsWith('\n') || !isPortableText(text))
    return `${singleQuoted(escapeTerminal(text))} (written escaped: no shell word gives it back whole)`;
  const format = printfFormat(text);
  // A format that starts with `-` would be read as an option by bash's printf.
  return `"$(printf ${format.startsWith('-') ? '-- ' : ''}${singleQuoted(format)})"`;
}
