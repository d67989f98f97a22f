/** The admin commands: `cards list`, `keyknox`, `history`, `reset`, against a server's admin API. */
import { Argument, Option } from 'commander';
import { declare } from '../../command.js';
import type { CardsPage, IdentityHistory, KeyknoxPage } from '../../../core/admin-rows.js';
import type { AdminFlags } from '../../admin-access.js';
import { ADMIN_TOKEN_HELP, adminFlags } from '../../flags.js';
import { plural, when } from '../../text.js';
import type { PageFlags } from './admin.js';

const admin = () => import('./admin.js');
/** --limit, --cursor and --all of a listing of `what`. */
const pageFlags = (what: string) => [
  adminFlags(),
  new Option('--limit <n>', `${what} per page, 1 to 1000 (default 100)`),
  new Option('--cursor <cursor>', 'start after this cursor (from a previous page)'),
  new Option('--all', 'every page'),
];
/** The line saying how to go on, after a page that is not the last. */
const more = (next: string | null, s: { dim: (t: string) => string }) =>
  next === null ? '' : s.dim(`more: --cursor ${next} (or --all)`);

export default [
  declare({
    name: 'list',
    summary: 'Every card of a server in insertion order, with its state (admin API).',
    flags: pageFlags('cards'),
    help: ADMIN_TOKEN_HELP,
    examples: ['cards list', 'cards list --all --json'],
    run: async (ctx, options: PageFlags) => (await admin()).listCards(ctx, options),
    text: (r: CardsPage, s) =>
      [
        ...r.cards.map(
          (c) => `${String(c.seq).padStart(6)}  ${c.id}  ${c.state.padEnd(10)}  ${c.identity}`,
        ),
        r.cards.length === 0 ? s.dim('(no cards)') : '',
        more(r.next_cursor, s),
      ]
        .filter((line) => line !== '')
        .join('\n'),
  }),
  declare({
    name: 'keyknox',
    summary: "e3kit's Keyknox backups of a server: owner, place, readers, size, dates (admin API).",
    flags: pageFlags('entries'),
    help: `${ADMIN_TOKEN_HELP}
Lists every v1 blob, then every v2 entry, never their content. Text lines: api, app, owner,
root / path / key (v2), size, version (v1), last write, readers (v2); --json has every field.`,
    examples: ['cards keyknox', 'cards keyknox --all --json'],
    run: async (ctx, options: PageFlags) => (await admin()).listKeyknox(ctx, options),
    text: (r: KeyknoxPage, s) =>
      [
        ...r.keyknox.map((k) =>
          [
            k.api,
            `app ${k.app === '' ? s.dim('(none)') : k.app}`,
            k.owner,
            ...(k.root === null ? [] : [`${k.root} / ${k.path ?? ''} / ${k.key ?? ''}`]),
            `${k.size} B`,
            ...(k.version === null ? [] : [k.version]),
            `updated ${k.updated ?? '?'}`,
            ...(k.readers.length === 0 ? [] : [`readers ${k.readers.join(', ')}`]),
          ].join('  '),
        ),
        r.keyknox.length === 0 ? s.dim('(no Keyknox entries)') : '',
        more(r.next_cursor, s),
      ]
        .filter((line) => line !== '')
        .join('\n'),
  }),
  declare({
    name: 'history',
    summary: "An identity's whole history: every chain, every card, states and dates.",
    args: [new Argument('<identity>')],
    flags: [adminFlags()],
    help: ADMIN_TOKEN_HELP,
    examples: ['cards history alice'],
    run: async (ctx, options: AdminFlags, [identity]) =>
      (await admin()).history(ctx, identity as string, options),
    text: (r: IdentityHistory, s) =>
      [
        `${s.bold(r.identity)}: ${plural(r.chains.length, 'chain')}`,
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
    help: ADMIN_TOKEN_HELP,
    examples: ['cards reset --yes'],
    run: async (ctx, options: AdminFlags & { yes?: boolean }) =>
      (await admin()).reset(ctx, options),
    text: (r: { cards: number; url: string; log: { origin: string; vkey: string } | null }, s) =>
      `${s.ok('reset')}: ${r.url} now holds ${r.cards} cards${r.log ? `\nnew log: ${r.log.origin}\nlog key: ${r.log.vkey}` : ''}`,
  }),
];
