// How the page writes what a card, an identity or a request holds: as text, never as markup,
// with every character that would act rather than show written out. The CLI's rules come from
// the very module the CLI uses (core/terminal-text.js: C0, DEL, C1 and the bidi controls as
// \n, \xHH, \uHHHH), and the page adds what a browser shows as nothing or as U+FFFD: lone
// surrogates and default-ignorable code points (zero-width spaces and joiners, the BOM,
// variation selectors, tags), so two different identities never look the same.
import { escapeTerminal } from './core/terminal-text.js';

const INVISIBLE = /\p{Default_Ignorable_Code_Point}|\p{Surrogate}/u;
const CODE_POINTS = /[\s\S]/gu;

const hex = (n, width) => n.toString(16).padStart(width, '0');

/** Whether the character `c` (one code point, or a lone surrogate) is written out. */
const hidden = (c) => escapeTerminal(c) !== c || INVISIBLE.test(c);

/** `c` as the CLI writes it, or as \uHHHH (\u{HHHHH} beyond the BMP). */
const written = (c) => {
  const cli = escapeTerminal(c);
  if (cli !== c) return cli;
  const n = c.codePointAt(0);
  return n > 0xffff ? `\\u{${hex(n, 5)}}` : `\\u${hex(n, 4)}`;
};

/** `value` as text a person reads as it is: every hidden character written out. */
export const visible = (value) =>
  String(value).replace(CODE_POINTS, (c) => (hidden(c) ? written(c) : c));

/**
 * `value` as indented JSON with every hidden character inside its strings written as \uHHHH
 * (one per UTF-16 unit), which JSON reads back the same (RFC 8259 section 7). JSON.stringify
 * already writes C0 controls and lone surrogates so; the line breaks are its own.
 */
export const visibleJson = (value) =>
  JSON.stringify(value, null, 2).replace(CODE_POINTS, (c) =>
    c !== '\n' && hidden(c)
      ? Array.from({ length: c.length }, (_, i) => `\\u${hex(c.charCodeAt(i), 4)}`).join('')
      : c,
  );

/** The last second a created_at is shown as a date (as the CLI does: year 5138). */
const LAST_DATE = 1e11;

/**
 * A created_at (seconds since the epoch) as an ISO 8601 date, or the number as given and
 * "out of range" when no date shows it (Date holds ±8.64e15 ms).
 */
export function dateText(seconds) {
  if (seconds === null || seconds === undefined) return 'unknown';
  if (Number.isSafeInteger(seconds) && seconds > 0 && seconds < LAST_DATE)
    return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
  return `${visible(typeof seconds === 'string' ? seconds : JSON.stringify(seconds))} (out of range)`;
}
