/** `cards export`, `cards import`, `cards db migrate`: a registry moved, a schema migrated. */
import { Argument, Option } from 'commander';
import { declare } from '../../command.js';
import { adminFlags, dbFlag, storeFlag } from '../../flags.js';
import type { TransferOptions } from './transfer.js';

const transfer = () => import('./transfer.js');
/** The summary went to stderr; stdout shows it only as the --json document. */
const onStderr = (): string => '';

export default [
  declare({
    name: 'export',
    summary:
      'Every stored card as NDJSON, one record per line, in insertion order: from a store (--store FILE|URL, --db) or from a running server (--url, admin API).',
    flags: [
      adminFlags(),
      storeFlag(),
      new Option('--out <file>', 'write to this new file instead of stdout'),
    ],
    help: `From a store when --store names one; else from a server when a URL is set (--url, CARDS_URL,
the profile's url); else from --db's store (set anywhere but its default) or DATABASE_URL.`,
    examples: [
      'cards export --store cards.json > dump.ndjson',
      'cards export --store postgres://cards@db:5432/cards > dump.ndjson',
      'cards export --url http://127.0.0.1:8080 --out dump.ndjson',
    ],
    run: async (ctx, options: TransferOptions) => (await transfer()).exportCommand(ctx, options),
    text: onStderr,
  }),
  declare({
    name: 'import',
    summary:
      'Store the cards of an NDJSON dump, each verified (id, self signature): into a store (--store, --db) or a running server (--url, admin API); an empty one unless --append.',
    args: [new Argument('[file]', 'NDJSON from cards export; - or none for stdin')],
    flags: [
      adminFlags(),
      storeFlag(),
      new Option(
        '--append',
        'add to a registry that holds cards already, card by card with its rules',
      ),
    ],
    help: 'Into a store or a server as `cards export` reads from one.',
    examples: [
      'cards import --store postgres://cards@db:5432/cards < dump.ndjson',
      'cards export --store old.json | cards import --store new.json',
      'cards import dump.ndjson --url http://127.0.0.1:8080',
    ],
    run: async (ctx, options: TransferOptions, [file]) =>
      (await transfer()).importCommand(ctx, options, file),
    text: onStderr,
    hints: {
      // The server's message names its query string; the CLI's word for it is --append.
      IMPORT_NOT_EMPTY:
        "pass --append to add the cards one by one with the registry's rules, or empty it first (`cards reset --yes`)",
    },
  }),
  declare({ name: 'db', summary: 'The PostgreSQL store.' }),
  declare({
    name: 'db migrate',
    summary: 'Create or migrate the PostgreSQL schema (servers also do it on start).',
    flags: [storeFlag(), dbFlag()],
    examples: [
      'cards db migrate --store postgres://cards@db:5432/cards',
      'DATABASE_URL=postgres://… cards db migrate --json',
    ],
    run: async (ctx, options: TransferOptions) => (await transfer()).migrateCommand(ctx, options),
    text: (r: { from: number; to: number; store: string }) =>
      r.from === r.to
        ? `schema version ${r.to}: up to date (${r.store})`
        : `schema migrated from version ${r.from} to ${r.to} (${r.store})`,
  }),
];
