/**
 * The card lines of the store file, read where they lie when a card is first used
 * (src/store/stored-line.ts): opening a store keeps its cards' index fields only, and their
 * lines stay in the file (in the operating system's page cache, having just been read) rather
 * than in strings made for every card. On this kind of host, memory a process touches for the
 * first time costs far more than reading a line again: 68 MB of lines cost ~0.5 s to hold.
 *
 * Reads are synchronous: a line is a few hundred bytes of a file just read, a copy out of the
 * page cache, and a card's fields are read synchronously wherever it is used. When the file is
 * rewritten (store-file.ts), its card lines keep their places relative to the first card line,
 * and `moveTo` follows the new file.
 */
import { isAscii } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import { CardsError } from '../../core/errors.js';
import type { LineSource } from '../stored-line.js';

export class FileLines implements LineSource {
  #fd: number | undefined;
  /** Where the first card line starts in the file, in bytes. */
  #base: number;
  #buffer = Buffer.allocUnsafe(16 * 1024);

  /** `fd`, open for reading, is this object's to close; `base`: see rebase. */
  constructor(fd: number, base = 0) {
    this.#fd = fd;
    this.#base = base;
  }

  /** The first card line starts `base` bytes into the file; offsets count from there. */
  rebase(base: number): void {
    this.#base = base;
  }

  read(offset: number, length: number): string {
    const fd = this.#fd;
    if (fd === undefined)
      throw new CardsError(
        'STORE_UNAVAILABLE',
        'The store was emptied or closed while the card was being read.',
      );
    if (length > this.#buffer.length) this.#buffer = Buffer.allocUnsafe(length);
    const buffer = this.#buffer;
    let got = 0;
    while (got < length) {
      const n = readSync(fd, buffer, got, length - got, this.#base + offset + got);
      if (n === 0) break;
      got += n;
    }
    const bytes = buffer.subarray(0, got);
    return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  }

  /** Follows the store file rewritten at `path`, its first card line at `base`. */
  moveTo(path: string, base: number): void {
    const fd = openSync(path, 'r');
    this.close();
    this.#fd = fd;
    this.#base = base;
  }

  /** Lines are not read any more (a store emptied or closed). */
  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}
