/** The admin commands: `cards list`, `history`, `reset`, against a server's admin API. */
import { Argument, Option } from 'commander';
import { declare } from '../../command.js';
import type { AdminFlags, ListResult } from '../../admin-access.js';
import { adminFlags } from '../../flags.js';
import { when } from '../../text.js';
import type { HistoryResult } from './admin.js';

const admin = () => import('./admin.js');
const ADMIN_HELP = `The admin token comes from --admin-token, CARDS_ADMIN_TOKEN, the profile's adminToken, or
the token file beside --db's store; a server listening on loopback only needs none.`;

export default [
  declare({
    name: 'list',
    summary: 'Every card of a server in insertion order, with its state (admin API).',
    flags: [
      adminFlags(),
      new Option('--limit <n>', 'cards per page, 1 to 1000 (default 100)'),
      new Option('--cursor <cursor>', 'start after this cursor (from a previous page)'),
      new Option('--all', 'every page'),
    ],
    help: ADMIN_HELP,
    examples: ['cards list', 'cards list --all --json'],
    run: async (ctx, options: AdminFlags & { limit?: string; cursor?: string; all?: boolean }) =>
      (await admin()).listCards(ctx, options),
    text: (r: ListResult, s) =>
      [
        ...r.cards.map(
          (c) => `${String(c.seq).padStart(6)}  ${c.id}  ${c.state.padEnd(10)}  ${c.identity}`,
        ),
        r.cards.length === 0 ? s.dim('(no cards)') : '',
        r.next_cursor === null ? '' : s.dim(`more: --cursor ${r.next_cursor} (or --all)`),
      ]
        .filter((line) => line !== '')
        .join('\n'),
  }),
  declare({
    name: 'history',
    summary: "An identity's whole history: every chain, every card, states and dates.",
    args: [new Argument('<identity>')],
    flags: [adminFlags()],
    help: ADMIN_HELP,
    examples: ['cards history alice'],
    run: async (ctx, options: AdminFlags, [identity]) =>
      (await admin()).history(ctx, identity as string, options),
    text: (r: HistoryResult, s) =>
      [
        `${s.bold(r.identity)}: ${r.chains.length} chain${r.chains.length === 1 ? '' : 's'}`,
        ...r.chains.flatMap((chain, i) => [
          `  chain ${i + 1}${chain.revoked ? ' (revoked)' : ''}`,
          ...chain.cards.map(
            (c) =>
              `    ${c.id}  ${c.state.padEnd(10)}  ${c.created_at === null ? '?' : when(c.created_at)}`,
          ),
        ]),
      ].join('\n'),
  }),
  declare({
    name: 'reset',
    summary: "Empty a server's registry (admin API).",
    flags: [adminFlags(), new Option('--yes', 'confirm: every card is removed')],
    help: ADMIN_HELP,
    examples: ['cards reset --yes'],
    run: async (ctx, options: AdminFlags & { yes?: boolean }) =>
      (await admin()).reset(ctx, options),
    text: (r: { cards: number; url: string; log: { origin: string; vkey: string } | null }, s) =>
      `${s.ok('reset')}: ${r.url} now holds ${r.cards} cards${r.log ? `\nnew log: ${r.log.origin}\nlog key: ${r.log.vkey}` : ''}`,
  }),
];
