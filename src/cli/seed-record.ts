/**
 * What `cards seed` created from a seed file on a service, kept in the keystore home
 * (`seeded/<sha-256 of the service URL and the file>.json`, mode 0600), so a rerun creates
 * nothing new: when every card the file names is on the service already, the rerun says so and
 * prints the recorded summary; when only some are (a run stopped part-way, a file grown since),
 * it refuses rather than start a second chain for an identity, and `--reset` starts over.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFileSync } from '../io/fs-durable.js';
import type { SeededCard } from './seeding.js';

export interface SeedRecord {
  readonly url: string;
  readonly file: string;
  readonly cards: Readonly<Record<string, SeededCard>>;
}

export interface SeedRecordFile {
  read(): SeedRecord | undefined;
  write(cards: Readonly<Record<string, SeededCard>>): void;
  remove(): void;
}

/** The record of `file` (an absolute path, or `-` with the text read from stdin) on `url`. */
export function seedRecord(home: string, url: string, file: string, text: string): SeedRecordFile {
  // stdin has no path: its text names it.
  const source = file === '-' ? `stdin:${createHash('sha256').update(text).digest('hex')}` : file;
  const name = createHash('sha256').update(`${url}\n${source}`).digest('hex').slice(0, 32);
  const dir = join(home, 'seeded');
  const path = join(dir, `${name}.json`);
  return {
    read() {
      try {
        const record = JSON.parse(readFileSync(path, 'utf8')) as SeedRecord;
        return record.url === url && record.file === source ? record : undefined;
      } catch {
        return undefined;
      }
    },
    write(cards) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const record: SeedRecord = { url, file: source, cards };
      replaceFileSync(path, `${JSON.stringify(record)}\n`, 0o600);
    },
    remove: () => rmSync(path, { force: true }),
  };
}
