/**
 * Small private files a program keeps (keys, tokens): read with a warning when other users can
 * read them, and made whole or not at all (createFileSync: temporary file, fsync, link, fsync of
 * the folder), mode 0600, never replacing one that exists. Synchronous: they are read once, at
 * start-up or by a command before any work.
 */
import { readFileSync, statSync } from 'node:fs';
import { CardsError } from '../core/errors.js';
import { createFileSync } from './fs-durable.js';

export interface PrivateText {
  readonly text: string;
  /** Set when the file can be read by others than its owner. */
  readonly warning?: string;
}

/** The file's text; undefined when it does not exist. A folder: USAGE. */
export function readPrivateFile(path: string): PrivateText | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'EISDIR') throw new CardsError('USAGE', `${path} is a folder, not a file.`);
    throw err;
  }
  const { mode } = statSync(path);
  if ((mode & 0o077) === 0) return { text };
  const octal = (mode & 0o777).toString(8);
  return {
    text,
    warning: `${path} can be read by other users (mode ${octal}); run chmod 600 ${path}`,
  };
}

/** The text at `path`, or `make()`'s, written there when there is none; a racing maker's wins. */
export function keepPrivateFile(
  path: string,
  make: () => string,
): PrivateText & { readonly created: boolean } {
  const found = readPrivateFile(path);
  if (found) return { ...found, created: false };
  const text = make();
  try {
    createFileSync(path, text, 0o600);
  } catch (err) {
    // Another process made it between our read and our create: theirs is the one.
    const theirs = (err as NodeJS.ErrnoException).code === 'EEXIST' && readPrivateFile(path);
    if (theirs) return { ...theirs, created: false };
    throw err;
  }
  return { text, created: true };
}
