/**
 * The lines of a card dump (an NDJSON body or file), each without its `\n` or `\r\n`, with a
 * bound on one line: a stream of any length passes a line at a time, and a line longer than its
 * bound is refused when it grows past the bound, before it is held whole (node's readline holds
 * a line of any length, and a line of hundreds of MB exhausts the process).
 */
import { StringDecoder } from 'node:string_decoder';
import { CardsError } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';

/** How much of a line's start decides its bound (a dump line's head, below). */
const HEAD_CHARS = 64;

/** How a Keyknox line of a dump begins (keyknox-record.ts): it gets the Keyknox bound. */
const KEYKNOX_LINE_HEAD = /^\{"keyknox[12]":/;

const boundOf = (head: string): number =>
  KEYKNOX_LINE_HEAD.test(head) ? LIMITS.keyknoxLineMax : LIMITS.importLineMax;

/**
 * The lines of a card dump (what `GET /_cards/export` and `cards export` write), one bounded by
 * LIMITS.importLineMax, the largest card record plus slack (a Keyknox line by
 * LIMITS.keyknoxLineMax): a longer line is IMPORT_LINE_TOO_LONG (413) naming it, the lines
 * before it passed on. Every import path reads a dump through this, so a server and a local
 * import refuse the same file alike.
 */
export async function* dumpLines(
  source: AsyncIterable<Uint8Array | string>,
  hint: string,
): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  // The line being read, as the pieces it arrived in: each chunk is searched for its newlines
  // alone and the pieces joined once, at the line's end, so a line of many chunks costs its
  // length, not its length times its chunks (a 22 MB Keyknox line took over 60 s).
  let pieces: string[] = [];
  let pending = 0;
  let head = '';
  let number = 0;
  const tooLong = (lineNumber: number, bound: number): CardsError =>
    new CardsError(
      'IMPORT_LINE_TOO_LONG',
      `Import line ${lineNumber} is longer than ${bound} characters: no card record is; ${hint}.`,
    );
  const line = (text: string): string => {
    number++;
    const bound = boundOf(text);
    if (text.length > bound) throw tooLong(number, bound);
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  };
  const take = (text: string): void => {
    if (text === '') return;
    pieces.push(text);
    pending += text.length;
    if (head.length < HEAD_CHARS) head += text.slice(0, HEAD_CHARS - head.length);
  };
  const finish = (): string => {
    const text = pieces.length === 1 ? pieces[0]! : pieces.join('');
    pieces = [];
    pending = 0;
    head = '';
    return text;
  };
  for await (const chunk of source) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      take(text.slice(start, nl));
      yield line(finish());
      start = nl + 1;
    }
    take(text.slice(start));
    const bound = boundOf(head);
    if (pending > bound) throw tooLong(number + 1, bound);
  }
  take(decoder.end());
  if (pending > 0) yield line(finish());
}
