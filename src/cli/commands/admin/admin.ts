/**
 * The admin commands, against a server's admin API: `cards list`, `cards keyknox`, `cards history
 * IDENTITY`, `cards reset --yes` (`cards requests` is in commands/requests, `cards export` and `cards
 * import` through a server in commands/transfer). The admin token comes from --admin-token, CARDS_ADMIN_TOKEN, the profile's
 * `adminToken` (for the profile's URL alone), or the token file beside a local store (--db; for
 * the server holding it alone), in that order (admin-access.ts); none is sent when none is
 * found or the one found is withheld (a loopback-only server needs none).
 */
import type {
  CardRow,
  CardsPage,
  IdentityHistory,
  KeyknoxPage,
  KeyknoxRow,
} from '../../../core/admin-rows.js';
import { CardsError } from '../../../core/errors.js';
import { LIMITS } from '../../../core/limits.js';
import {
  adminClient as client,
  adminPages,
  limitOf,
  LISTED_FIELD,
  resetServer,
  type AdminFlags,
  type ListedRoute,
  type ListedRow,
} from '../../admin-access.js';
import type { CommandContext } from '../../context.js';
import { resolveServer } from '../../settings.js';

export type PageFlags = AdminFlags & { limit?: string; cursor?: string; all?: boolean };

/** The rows (under the route's field) of one page of a listing (--cursor, --limit), or of all (--all). */
async function listed<T extends ListedRow>(
  ctx: CommandContext,
  flags: PageFlags,
  route: ListedRoute,
): Promise<{ rows: T[]; next_cursor: string | null }> {
  const field = LISTED_FIELD[route];
  const limit =
    limitOf(flags.limit, LIMITS.adminPageMax) ??
    String(flags.all ? LIMITS.adminPageMax : LIMITS.adminPageDefault);
  const rows: T[] = [];
  let next_cursor: string | null = null;
  type Page = { next_cursor: string | null } & Record<string, T[]>;
  for await (const page of adminPages<Page>(client(ctx, flags), route, limit, flags.cursor)) {
    rows.push(...(page[field] ?? []));
    next_cursor = page.next_cursor;
    if (!flags.all) break;
  }
  return { rows, next_cursor };
}

export async function listCards(ctx: CommandContext, flags: PageFlags): Promise<CardsPage> {
  const { rows, next_cursor } = await listed<CardRow>(ctx, flags, 'adminCards');
  return { cards: rows, next_cursor };
}

/** e3kit's Keyknox blobs, then entries, of a server: metadata only (GET /_cards/keyknox). */
export async function listKeyknox(ctx: CommandContext, flags: PageFlags): Promise<KeyknoxPage> {
  const { rows, next_cursor } = await listed<KeyknoxRow>(ctx, flags, 'adminKeyknox');
  return { keyknox: rows, next_cursor };
}

export const history = (ctx: CommandContext, identity: string, flags: AdminFlags) =>
  client(ctx, flags).json<IdentityHistory>('GET', 'adminIdentity', { param: identity });

/** The log a server keeps (its /_cards/info `log`), null for a server without one. */
export interface ServedLog {
  origin: string;
  vkey: string;
  path: string;
}

export async function reset(
  ctx: CommandContext,
  flags: AdminFlags & { yes?: boolean },
): Promise<{ cards: number; url: string; log: ServedLog | null }> {
  if (!flags.yes)
    throw new CardsError('USAGE', 'cards reset empties the registry: pass --yes to confirm.');
  const admin = client(ctx, flags);
  const result = await resetServer(admin);
  // A reset begins a new log (docs/log.md): its origin, key and prefix are what clients trust next.
  const info = await admin.json<{ log?: (ServedLog & { size: number }) | null }>(
    'GET',
    'adminInfo',
  );
  const log = info.log
    ? { origin: info.log.origin, vkey: info.log.vkey, path: info.log.path }
    : null;
  return { ...result, url: resolveServer(ctx, flags).url.value, log };
}
