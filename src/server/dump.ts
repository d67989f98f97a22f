/**
 * A server's dump (`cards serve --import FILE`, `--export-on-exit FILE`): everything it needs to
 * come back as it was. One JSON line of header, then what GET /_cards/export writes: e3kit's
 * Keyknox entries and one stored card record per line. The header carries the keys the cards and the log were signed
 * with (the service key, the app key tokens are checked against, the log key), so the dump says
 * it holds private keys and is written with mode 0600, whole or not at all. The log itself is
 * not copied: importing the cards in order under the same log key rebuilds the same tree
 * (C2SP tlog-tiles: the tree is a function of its entries), with checkpoints signed anew.
 */
import { createReadStream } from 'node:fs';
import { CardsError } from '../core/errors.js';
import { replaceFileSync } from '../io/fs-durable.js';
import { dumpLines } from '../io/lines.js';
import type { PrivateKey } from '../crypto/keys.js';
import { insertLines } from '../registry/import-lines.js';
import { exportCards } from '../registry/transfer.js';
import type { Engine, SecretName } from '../store/engine.js';

export const DUMP_FORMAT = 'cards-dump';
const DUMP_VERSION = 1;
/** The secrets a dump carries (the admin token is the operator's, not the registry's). */
export const DUMP_SECRETS = ['service-key', 'app-key', 'log-key'] as const satisfies SecretName[];
export type DumpSecret = (typeof DUMP_SECRETS)[number];

export interface DumpHeader {
  readonly format: typeof DUMP_FORMAT;
  readonly version: number;
  readonly warning: string;
  readonly secrets: Partial<Record<DumpSecret, string>>;
}

const WARNING =
  'This file holds private keys (the service key, the app key and the log key of a cards serve): keep it as you keep them.';

const corrupt = (file: string, why: string): CardsError =>
  new CardsError('USAGE', `--import ${file}: ${why}; a dump is what --export-on-exit writes.`);

/** The dump's header and its card records, one per line (read as a stream). */
export async function readDump(
  file: string,
): Promise<{ header: DumpHeader; records: AsyncIterable<string> }> {
  // Bounded lines, as every import reads a dump: a line past the largest record is refused.
  const iterator = dumpLines(createReadStream(file), 'a dump is what --export-on-exit writes');
  let first: IteratorResult<string>;
  try {
    first = await iterator.next();
  } catch (err) {
    throw corrupt(file, (err as NodeJS.ErrnoException).code ?? 'cannot be read');
  }
  let header: DumpHeader | undefined;
  try {
    header = first.done ? undefined : (JSON.parse(first.value) as DumpHeader);
  } catch {
    header = undefined;
  }
  if (header?.format !== DUMP_FORMAT || typeof header.secrets !== 'object' || !header.secrets)
    throw corrupt(file, 'its first line is not a dump header');
  if (header.version !== DUMP_VERSION)
    throw corrupt(file, `version ${header.version} is not one this cards reads (${DUMP_VERSION})`);
  return { header, records: afterHeader(iterator) };
}

/**
 * The dump's records, the header's line given on as a blank line (which an import skips), so
 * a refusal's line number is the file's.
 */
async function* afterHeader(iterator: AsyncIterator<string>): AsyncGenerator<string> {
  yield '';
  yield* { [Symbol.asyncIterator]: () => iterator };
}

/**
 * Before the server's secrets are loaded: the dump's keys become the engine's (a store that keeps
 * other keys, or holds cards, is refused: a dump starts a server, it does not merge into one).
 */
export async function adoptDumpSecrets(
  file: string,
  engine: Pick<Engine, 'secrets' | 'cards'>,
): Promise<AsyncIterable<string>> {
  const { header, records } = await readDump(file);
  if ((await engine.cards.count()) > 0)
    throw new CardsError(
      'IMPORT_NOT_EMPTY',
      `--import ${file}: the store holds cards already; import into a new store (another --db, or --memory).`,
    );
  for (const name of DUMP_SECRETS) {
    const value = header.secrets[name]?.trim();
    if (value === undefined) continue;
    const kept = await engine.secrets.keep(name, () => value);
    if (kept.value !== value)
      throw new CardsError(
        'USAGE',
        `--import ${file}: the store keeps another ${name} (${kept.where}); import into a new store (another --db, or --memory).`,
      );
  }
  return records;
}

/**
 * The dump's cards (and Keyknox entries) into the engine, in order, as every import stores them
 * (the log follows). A line refused fails the start, which discards the store it made, so the
 * refusal says nothing of cards that stay.
 */
export async function importDumpCards(
  records: AsyncIterable<string>,
  engine: Pick<Engine, 'cards' | 'keyknox'>,
): Promise<number> {
  return (await insertLines(engine.cards, engine.keyknox, records, false, true)).imported;
}

/**
 * Writes the server's dump (`--export-on-exit`, on SIGINT/SIGTERM): its keys, its Keyknox entries
 * and every card (transfer.ts `exportCards`), whole (temporary file, fsync, rename), mode 0600;
 * resolves with the count of cards.
 */
export async function exportDump(
  file: string,
  keys: Partial<Record<DumpSecret, PrivateKey | undefined>>,
  engine: Pick<Engine, 'cards' | 'keyknox'>,
): Promise<number> {
  const header: DumpHeader = {
    format: DUMP_FORMAT,
    version: DUMP_VERSION,
    warning: WARNING,
    secrets: {},
  };
  for (const name of DUMP_SECRETS) {
    const key = keys[name];
    if (key) header.secrets[name] = key.toPem();
  }
  const parts = [`${JSON.stringify(header)}\n`];
  const cards = await exportCards(engine, async (chunk) => {
    parts.push(chunk);
  });
  replaceFileSync(file, parts.join(''), 0o600);
  return cards;
}
