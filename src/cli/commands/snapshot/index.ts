/** `cards snapshot save|restore|list`: a running server's registry saved and put back by name. */
import { Argument, Option } from 'commander';
import type { AdminFlags } from '../../admin-access.js';
import { declare } from '../../command.js';
import { adminFlags } from '../../flags.js';
import { keyknoxNote } from '../../text.js';
import type { SnapshotInfo } from './snapshot.js';

const snapshot = () => import('./snapshot.js');
const HELP = `Snapshots are kept in the keystore home (snapshots/NAME.ndjson, what \`cards export\` writes:
every stored card, in insertion order, after e3kit's Keyknox records). Restore empties the server and imports the snapshot in
one admin request (POST /_cards/import?replace=true); the server keeps its own keys.`;

export default [
  declare({
    name: 'snapshot',
    summary: "Named copies of a running server's cards: save, restore, list (admin API).",
  }),
  declare({
    name: 'snapshot save',
    summary: "Save a running server's cards under a name (admin API).",
    args: [new Argument('<name>')],
    flags: [adminFlags(), new Option('--force', 'replace a snapshot of that name')],
    help: HELP,
    examples: ['cards snapshot save before-test', 'cards snapshot save seeded --force'],
    run: async (ctx, options: AdminFlags & { force?: boolean }, [name]) =>
      (await snapshot()).saveSnapshot(ctx, name as string, options),
    text: (r: SnapshotInfo & { url: string }, s) =>
      `${s.ok('saved')} ${r.name}: ${r.cards} card(s)${keyknoxNote(r)} of ${r.url} in ${r.file}`,
  }),
  declare({
    name: 'snapshot restore',
    summary: 'Put a saved snapshot back: the server holds exactly its cards (admin API).',
    args: [new Argument('<name>')],
    flags: [adminFlags(), new Option('--yes', 'confirm: every card of the server is replaced')],
    help: HELP,
    examples: ['cards snapshot restore before-test --yes'],
    run: async (ctx, options: AdminFlags & { yes?: boolean }, [name]) =>
      (await snapshot()).restoreSnapshot(ctx, name as string, options),
    text: (r: { name: string; url: string; cards: number }, s) =>
      `${s.ok('restored')} ${r.name}: ${r.url} now holds ${r.cards} card(s)`,
  }),
  declare({
    name: 'snapshot list',
    summary: 'The snapshots saved, with their card counts and times.',
    help: HELP,
    examples: ['cards snapshot list'],
    run: async (ctx) => (await snapshot()).listSnapshots(ctx),
    text: (r: { snapshots: SnapshotInfo[] }, s) =>
      r.snapshots.length === 0
        ? s.dim('(no snapshots; `cards snapshot save NAME` makes one)')
        : r.snapshots
            .map(
              (x) =>
                `${x.name.padEnd(20)} ${String(x.cards).padStart(7)} card(s)  ${x.saved}${keyknoxNote(x)}`,
            )
            .join('\n'),
  }),
];
