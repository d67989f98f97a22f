/**
 * A small JSON document of the CLI (the config file, the keystore index), read whole and
 * written whole through lowdb with this project's own adapter: an absent file is the empty
 * document, a file `decode` refuses is never overwritten, and a write replaces the file
 * atomically, mode 0600 (src/io/fs-durable.ts), in a folder only its owner can enter.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LowSync } from 'lowdb';
import { replaceFileSync } from '../io/fs-durable.js';

export function openJsonDocument<T>(
  path: string,
  decode: (text: string) => T,
  empty: T,
): LowSync<T> {
  const document = new LowSync<T>(
    {
      read() {
        try {
          return decode(readFileSync(path, 'utf8'));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
          throw err;
        }
      },
      write(data) {
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        replaceFileSync(path, `${JSON.stringify(data, null, 2)}\n`, 0o600);
      },
    },
    empty,
  );
  document.read();
  return document;
}

/**
 * Where the home keeps the document of what `key` names, in `folder`: a file named by the hex of
 * the key's SHA-256, its first `hexDigits`, so any key (an origin, a URL) makes a safe name.
 */
export const homeDocumentPath = (
  home: string,
  folder: string,
  key: string,
  hexDigits: number,
): string =>
  join(home, folder, `${createHash('sha256').update(key).digest('hex').slice(0, hexDigits)}.json`);
