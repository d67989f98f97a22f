/**
 * The lines of a byte stream (an NDJSON body or file), each without its `\n` or `\r\n`, with a
 * bound on one line: a stream of any length passes a line at a time, and a line longer than
 * `maxChars` is refused when it grows past the bound, before it is held whole (node's readline
 * holds a line of any length, and a line of hundreds of MB exhausts the process).
 */
import { StringDecoder } from 'node:string_decoder';
import { CardsError } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';

export class LineTooLongError extends Error {
  constructor(
    readonly lineNumber: number,
    readonly maxChars: number,
  ) {
    super(`line ${lineNumber} is longer than ${maxChars} characters`);
  }
}

export async function* boundedLines(
  source: AsyncIterable<Uint8Array | string>,
  maxChars: number | ((head: string) => number),
): AsyncGenerator<string> {
  const boundOf = typeof maxChars === 'number' ? () => maxChars : maxChars;
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let number = 0;
  const line = (text: string): string => {
    number++;
    const bound = boundOf(text);
    if (text.length > bound) throw new LineTooLongError(number, bound);
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  };
  for await (const chunk of source) {
    rest += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = 0;
    for (let nl = rest.indexOf('\n'); nl >= 0; nl = rest.indexOf('\n', start)) {
      yield line(rest.slice(start, nl));
      start = nl + 1;
    }
    rest = rest.slice(start);
    const bound = boundOf(rest);
    if (rest.length > bound) throw new LineTooLongError(number + 1, bound);
  }
  rest += decoder.end();
  if (rest !== '') yield line(rest);
}

/** How a Keyknox line of a dump begins (keyknox-record.ts): it gets the Keyknox bound. */
const KEYKNOX_LINE_HEAD = /^\{"keyknox[12]":/;

/**
 * The lines of a card dump (what `GET /_cards/export` and `cards export` write), one bounded by
 * LIMITS.importLineMax, the largest card record plus slack (a Keyknox line by
 * LIMITS.keyknoxLineMax): a longer line is
 * IMPORT_LINE_TOO_LONG (413) naming it, the lines before it passed on. Every import path reads
 * a dump through this, so a server and a local import refuse the same file alike.
 */
export async function* dumpLines(
  source: AsyncIterable<Uint8Array | string>,
  hint: string,
): AsyncGenerator<string> {
  try {
    yield* boundedLines(source, (head) =>
      KEYKNOX_LINE_HEAD.test(head) ? LIMITS.keyknoxLineMax : LIMITS.importLineMax,
    );
  } catch (err) {
    if (!(err instanceof LineTooLongError)) throw err;
    throw new CardsError(
      'IMPORT_LINE_TOO_LONG',
      `Import ${err.message}: no card record is; ${hint}.`,
    );
  }
}
