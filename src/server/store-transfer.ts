/**
 * What the CLI does to a store without serving it, through the engine it names (open-engine.ts;
 * the CLI reaches engines only through src/server): `cards export` and `cards import` move a
 * registry as NDJSON (the rules are src/registry/transfer.ts), `cards db migrate` brings a
 * PostgreSQL schema up to date, and `cards jwt --store URL` reads the app key the servers on a
 * database keep there.
 */
import { CardsError } from '../core/errors.js';
import { exportCards, importCards, type ImportCount } from '../registry/transfer.js';
import { isStoreUrl } from './defaults.js';
import { openEngine, peekSecret, type Engine } from './open-engine.js';
import { APP_KEY_NAME } from './server-keys.js';

export interface Transferred {
  readonly cards: number;
  /** An import with append: cards of the dump the store held already, identically (skipped). */
  readonly skipped?: number;
  /** The store, named for a person (a password never shown). */
  readonly store: string;
}

async function withEngine<T>(
  target: string,
  onWarning: (message: string) => void,
  use: (engine: Engine) => Promise<T>,
): Promise<T> {
  const engine = await openEngine(target, { onWarning });
  try {
    return await use(engine);
  } finally {
    await engine.close();
  }
}

/** Every card of the store at `target`, one NDJSON line each, in insertion order. */
export function exportStore(
  target: string,
  write: (chunk: string) => Promise<void>,
  onWarning: (message: string) => void,
): Promise<Transferred> {
  return withEngine(target, onWarning, async (engine) => ({
    cards: await exportCards(engine, write),
    store: engine.description,
  }));
}

/**
 * The cards of NDJSON `lines` into the store at `target`: an empty one, unless `append`. A
 * refused import that stored no card leaves nothing it made (a new store file, its companions).
 */
export async function importStore(
  target: string,
  lines: AsyncIterable<string>,
  append: boolean,
  onWarning: (message: string) => void,
): Promise<Transferred> {
  const engine = await openEngine(target, { onWarning });
  let count: ImportCount;
  try {
    count = await importCards(engine, lines, { ...(append && { append: true }) });
  } catch (err) {
    const stored = await engine.cards.count().catch(() => undefined);
    await (stored === 0 ? engine.discard() : engine.close()).catch(() => undefined);
    throw err;
  }
  await engine.close();
  return { cards: count.imported, skipped: count.skipped, store: engine.description };
}

/** Creates or migrates the PostgreSQL schema at `url`: from which version to which. */
export function migrateStore(
  url: string,
  onWarning: (message: string) => void,
): Promise<{ from: number; to: number; store: string }> {
  if (!isStoreUrl(url))
    throw new CardsError(
      'USAGE',
      '`cards db migrate` needs --store postgres://… (or DATABASE_URL).',
    );
  return withEngine(url, onWarning, async (engine) => ({
    ...(engine.migration ?? { from: 0, to: 0 }),
    store: engine.description,
  }));
}

/** The PEM of the app key kept at the store `url` (read only), and where it was found. */
export async function keptAppKey(url: string): Promise<{ pem: string; where: string }> {
  const { value: pem, where } = await peekSecret(url, APP_KEY_NAME);
  if (pem === undefined)
    throw new CardsError('CREDENTIALS_MISSING', `No app key is ${where}.`, {
      hint: 'start `cards serve --store URL` once without --jwt-key (it makes one and keeps it there), or pass --app-key FILE',
    });
  return { pem, where };
}
