/**
 * Reads a file as lines without ever holding it whole: a store the server wrote can be larger
 * than the longest string V8 makes (about 512 MiB), and it must open all the same. Each chunk is
 * cut after its last '\n' byte (a multi-byte UTF-8 character never holds one, so none is cut),
 * decoded as one string (latin1 when ASCII, the usual case: ids, base64): one decode per 4 MiB
 * rather than per line, and the text is made once, outside the young generation the garbage
 * collector copies. `readLines` splits each chunk into lines that are slices of it; the store
 * file's reader takes the chunks themselves (`readChunks`) and reads its lines in place.
 */
import { isAscii } from 'node:buffer';
import { open, stat } from 'node:fs/promises';

export interface Line {
  readonly text: string;
  /** 1-based line number. */
  readonly number: number;
  /** False for the last line of a file that does not end with '\n'. */
  readonly terminated: boolean;
}

const CHUNK = 4 * 1024 * 1024;

const decode = (bytes: Buffer): string =>
  isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');

/** A piece of a file: whole lines, joined by '\n' (the last one's '\n' cut off). */
export interface Chunk {
  readonly text: string;
  /** False for the last piece of a file that does not end with '\n' (one line, cut short). */
  readonly terminated: boolean;
}

/**
 * The lines of `path`, a chunk's worth at a time (one await per 4 MiB, not per line); nothing
 * when the file does not exist (ENOENT is not an error here).
 */
export async function* readLines(path: string): AsyncGenerator<Line[]> {
  let number = 0;
  for await (const { text, terminated } of readChunks(path)) {
    const lines: Line[] = [];
    for (let start = 0; ;) {
      const newline = text.indexOf('\n', start);
      const stop = newline === -1 ? text.length : newline;
      lines.push({ text: text.slice(start, stop), number: ++number, terminated });
      if (newline === -1) break;
      start = newline + 1;
    }
    yield lines;
  }
}

/**
 * The text of `path` in pieces of whole lines, each decoded once (readLines splits them; the
 * store file is read in place, store-file.ts); nothing when the file does not exist.
 */
export async function* readChunks(path: string): AsyncGenerator<Chunk> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    // One buffer, reused: the bytes of an unfinished line move to its start before each read,
    // and it doubles when one line outgrows it (a store file reformatted onto one line).
    let buffer = Buffer.allocUnsafe(CHUNK);
    let kept = 0;
    for (;;) {
      if (kept === buffer.length) buffer = Buffer.concat([buffer], buffer.length * 2);
      const { bytesRead } = await handle.read(buffer, kept, buffer.length - kept, null);
      if (bytesRead === 0) break;
      const end = kept + bytesRead;
      const cut = buffer.lastIndexOf(10, end - 1) + 1;
      if (cut === 0) {
        kept = end; // no line ends yet
        continue;
      }
      const text = decode(buffer.subarray(0, cut - 1));
      buffer.copy(buffer, 0, cut, end);
      kept = end - cut;
      yield { text, terminated: true };
    }
    if (kept > 0) yield { text: decode(buffer.subarray(0, kept)), terminated: false };
  } finally {
    await handle.close();
  }
}

/** The size of `path` in bytes; 0 when it does not exist. */
export async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}
