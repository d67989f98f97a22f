/**
 * Reads a file as lines without ever holding it whole: a store the server wrote can be larger
 * than the longest string V8 makes (about 512 MiB), and it must open all the same. Lines are
 * split on '\n' in the bytes, so a multi-byte UTF-8 character is never cut; ASCII lines (the
 * usual case: ids, base64) decode as latin1 without UTF-8 work.
 */
import { isAscii } from 'node:buffer';
import { open } from 'node:fs/promises';

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

/**
 * The lines of `path`, a chunk's worth at a time (one await per 4 MiB, not per line); nothing
 * when the file does not exist (ENOENT is not an error here).
 */
export async function* readLines(path: string): AsyncGenerator<Line[]> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    let carry: Buffer[] = [];
    let number = 0;
    const buffer = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      const lines: Line[] = [];
      let start = 0;
      for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, end);
        const bytes = carry.length === 0 ? piece : Buffer.concat([...carry, piece]);
        carry = [];
        lines.push({ text: decode(bytes), number: ++number, terminated: true });
        start = end + 1;
      }
      if (lines.length > 0) yield lines;
      // The chunk buffer is reused: keep a copy of the unfinished line.
      if (start < chunk.length) carry.push(Buffer.from(chunk.subarray(start)));
    }
    if (carry.length > 0)
      yield [{ text: decode(Buffer.concat(carry)), number: ++number, terminated: false }];
  } finally {
    await handle.close();
  }
}

/** The size of `path` in bytes; 0 when it does not exist. */
export async function fileSize(path: string): Promise<number> {
  try {
    const handle = await open(path, 'r');
    try {
      return (await handle.stat()).size;
    } finally {
      await handle.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}
