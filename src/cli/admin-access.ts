/**
 * What the commands that use a server's admin API share (the admin commands, `cards export`
 * and `cards import` through a server, `cards log audit`, `cards seed --reset`): the admin token
 * (--admin-token, CARDS_ADMIN_TOKEN, the profile's adminToken, else the token file beside --db's
 * store), a client with it, the listings (cards, Keyknox entries) page after page, and a reset.
 */
import { existsSync, readFileSync } from 'node:fs';
import { AdminClient } from '../client/admin-client.js';
import type { CardRow, KeyknoxRow } from '../core/admin-rows.js';
import { CardsError } from '../core/errors.js';
import { answersAsDocumented, answerTypesOf } from '../server/answer-check.js';
import { adminTokenPath } from '../server/file-home.js';
import type { CommandContext } from './context.js';
import { ownerUrl, ownsStore } from './local-server.js';
import {
  profileWithheld,
  required,
  resolveServer,
  sendableToken,
  setBy,
  type ConnectionFlags,
} from './settings.js';

export interface AdminFlags extends ConnectionFlags {
  adminToken?: string;
}

/**
 * The admin token in force and where it came from, said when the server refuses it; or, when
 * none is sent, why the profile's adminToken (it is the profile's server's) or the token file
 * beside --db's store (it is another server's) was not. The profile's adminToken withheld, the
 * token file goes to its store's server as it would with no adminToken in the profile.
 */
function adminToken(
  ctx: CommandContext,
  flags: AdminFlags,
  settings: ReturnType<typeof resolveServer>,
): { token: string; from: string } | { withheld: string } | undefined {
  // The profile's adminToken withheld from this URL, the token file may still be its server's.
  const withheld = flags.adminToken
    ? profileWithheld(ctx, flags, settings, 'adminToken')
    : undefined;
  if (flags.adminToken && withheld === undefined) {
    return { token: flags.adminToken, from: setBy('adminToken', flags.sources?.adminToken) };
  }
  const none = withheld === undefined ? undefined : { withheld };
  // The local store's admin token is for the server that holds that store, no other.
  const file = adminTokenPath(settings.db.value, ctx.cwd);
  if (!ownsStore(settings.url.value, settings.db.value, ctx.cwd)) {
    if (none || !existsSync(file)) return none;
    const owner = ownerUrl(settings.db.value, ctx.cwd);
    return {
      withheld: `the token file ${file} goes only to the server holding its store, ${owner ?? 'and none holds it now'}`,
    };
  }
  try {
    const token = readFileSync(file, 'utf8').trim();
    return token ? { token, from: `the token file ${file}` } : none;
  } catch {
    return none;
  }
}

export function adminClient(ctx: CommandContext, flags: AdminFlags): AdminClient {
  const settings = resolveServer(ctx, flags);
  const found = adminToken(ctx, flags, settings);
  return new AdminClient({
    url: settings.url.value,
    ...(found &&
      'token' in found && { token: sendableToken(found.token, found.from), tokenFrom: found.from }),
    ...(found && 'withheld' in found && { withheld: found.withheld }),
    timeoutMs: required(flags, 'timeout').value * 1000,
    answers: answersAsDocumented,
    answerTypes: answerTypesOf,
  });
}

/** Empties the server's registry: POST /_cards/reset, its confirmation in the body. */
export const resetServer = (admin: AdminClient): Promise<{ cards: number }> =>
  admin.json('POST', 'adminReset', { body: '{"confirm":"reset"}', type: 'application/json' });

/** --limit as the server checks it: digits, from 1 to `max` (the admin API's page size). */
export const limitOf = (value: string | undefined, max?: number): string | undefined => {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (n >= 1 && (max === undefined || n <= max)) return value;
  throw new CardsError(
    'USAGE',
    `--limit must be ${max === undefined ? 'a positive integer' : `an integer from 1 to ${max}`}, got "${value}".`,
  );
};

/** The field of each listing's page that holds its rows (docs/http.md). */
export const LISTED_FIELD = { adminCards: 'cards', adminKeyknox: 'keyknox' } as const;

export type ListedRoute = keyof typeof LISTED_FIELD;

/** A row of an admin listing: a card, or a Keyknox entry. */
export type ListedRow = CardRow | KeyknoxRow;

/** A page of an admin listing: its rows under its route's field, and where the next starts. */
type ListedPage = { readonly next_cursor: string | null } & {
  readonly [F in (typeof LISTED_FIELD)[ListedRoute]]?: readonly ListedRow[];
};

/** What names a row: a card's id; a Keyknox entry's address. */
const rowName = (row: ListedRow): string =>
  'id' in row ? row.id : JSON.stringify([row.api, row.app, row.owner, row.root, row.path, row.key]);

/**
 * A listing of the admin API from `cursor` on, a page at a time, following next_cursor to the
 * end. A walk reaches every row exactly once, each page holding at least one (docs/http.md):
 * a cursor the server gave already, or a page that points on with no row or ends at a row a
 * page ended at before, is a walk that would never end, NOT_A_SERVICE. Bounded so by the rows
 * a server can name, never by a size a real registry might reach.
 */
export async function* adminPages<Page extends ListedPage>(
  admin: AdminClient,
  route: ListedRoute,
  limit: string,
  cursor?: string,
): AsyncGenerator<Page> {
  const seen = new Set<string>();
  const lastRows = new Set<string>();
  const endless = (what: string): CardsError =>
    new CardsError(
      'NOT_A_SERVICE',
      `not a Cards service at ${admin.url}: its listing ${route} ${what}, a walk that never ends.`,
    );
  do {
    const page = await admin.json<Page>('GET', route, { query: { limit, cursor } });
    yield page;
    if (cursor !== undefined) seen.add(cursor);
    cursor = page.next_cursor ?? undefined;
    if (cursor === undefined) break;
    if (seen.has(cursor))
      throw new CardsError(
        'NOT_A_SERVICE',
        `not a Cards service at ${admin.url}: its listing ${route} gave the cursor ${JSON.stringify(cursor)} a second time, a loop that never ends.`,
      );
    const last = page[LISTED_FIELD[route]]?.at(-1);
    if (last === undefined) throw endless('gave a page with no row and a next_cursor');
    const name = rowName(last);
    if (lastRows.has(name)) throw endless('listed a row again');
    lastRows.add(name);
  } while (cursor !== undefined);
}
