/**
 * `cards export`, `cards import` and `cards db migrate`: move a registry between a
 * JSON store file and PostgreSQL, in either direction, as NDJSON on stdout / stdin (the rules
 * are src/registry/transfer.ts), and bring a PostgreSQL schema up to date ahead of a deploy.
 * Summaries go to stderr, so stdout is the dump alone.
 */
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { CardsError } from '../../core/errors.js';
import { exportCards, importCards } from '../../registry/transfer.js';
import { DEFAULT_DB, isStoreUrl } from '../../server/defaults.js';
import { openEngine, resolveStoreTarget, type Engine } from '../../server/open-engine.js';

export interface TransferOptions {
  readonly store?: string;
  readonly db?: string;
  /** --db given (flag or CARDS_DB), not its default. */
  readonly dbGiven?: boolean;
  readonly databaseUrl?: string;
  readonly append?: boolean;
  /** import: the dump's file; none or `-`: stdin. */
  readonly file?: string;
  /** export: a new file to write instead of stdout. */
  readonly out?: string;
}

const targetOf = (options: TransferOptions): string =>
  resolveStoreTarget({
    store: options.store,
    db: options.dbGiven ? options.db : undefined,
    databaseUrl: options.databaseUrl,
    fallback: options.db ?? DEFAULT_DB,
  });

const plural = (n: number): string => `${n} card${n === 1 ? '' : 's'}`;

async function withEngine<T>(target: string, use: (engine: Engine) => Promise<T>): Promise<T> {
  const engine = await openEngine(target, {
    onWarning: (m) => process.stderr.write(`warning: ${m}\n`),
  });
  try {
    return await use(engine);
  } finally {
    await engine.close();
  }
}

/** NDJSON of every card, in insertion order, to stdout (with backpressure). */
export async function exportCommand(options: TransferOptions): Promise<void> {
  const target = targetOf(options);
  if (!isStoreUrl(target) && !existsSync(target))
    throw new CardsError('FILE_NOT_FOUND', `No store file ${target}.`);
  // --out: a new file (never an existing one), written as the cards stream out.
  const out =
    options.out === undefined ? process.stdout : createWriteStream(options.out, { flags: 'wx' });
  const write = (chunk: string): Promise<void> =>
    new Promise((resolve, reject) => {
      if (out.write(chunk)) resolve();
      else {
        out.once('drain', resolve);
        out.once('error', reject);
      }
    });
  const n = await withEngine(target, async (engine) => {
    const count = await exportCards(engine.cards, write);
    process.stderr.write(`exported ${plural(count)} from ${engine.description}\n`);
    return count;
  });
  if (out !== process.stdout)
    await new Promise<void>((resolve, reject) =>
      out.end((err?: Error | null) => (err ? reject(err) : resolve())),
    );
  if (n < 0) throw new CardsError('INTERNAL');
}

/** Cards from NDJSON on stdin into the store (empty, or --append). */
export async function importCommand(options: TransferOptions): Promise<void> {
  const target = targetOf(options);
  await withEngine(target, async (engine) => {
    const input =
      options.file === undefined || options.file === '-'
        ? process.stdin
        : createReadStream(options.file);
    const lines = createInterface({ input, crlfDelay: Infinity });
    const n = await importCards(engine, lines, { ...(options.append && { append: true }) });
    process.stderr.write(`imported ${plural(n)} into ${engine.description}\n`);
  });
}

/** Creates or migrates the PostgreSQL schema and says from which version to which. */
export async function migrateCommand(options: TransferOptions): Promise<void> {
  const target = targetOf(options);
  if (!isStoreUrl(target))
    throw new CardsError(
      'USAGE',
      '`cards db migrate` needs --store postgres://… (or DATABASE_URL).',
    );
  await withEngine(target, async (engine) => {
    const { from, to } = engine.migration ?? { from: 0, to: 0 };
    process.stdout.write(
      from === to
        ? `schema version ${to}: up to date (${engine.description})\n`
        : `schema migrated from version ${from} to ${to} (${engine.description})\n`,
    );
  });
}
