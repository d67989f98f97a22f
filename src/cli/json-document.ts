/**
 * A small JSON document of the CLI (the config file, the keystore index), read whole and
 * written whole through lowdb with this project's own adapter: an absent file is the empty
 * document, a file `decode` refuses is never overwritten, and a write replaces the file
 * atomically, mode 0600 (src/io/fs-durable.ts), in a folder only its owner can enter.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
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
