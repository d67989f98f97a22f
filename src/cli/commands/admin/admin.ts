/**
 * The admin commands, against a server's admin API: `cards list`, `cards history IDENTITY`,
 * `cards reset --yes` (`cards requests` is in commands/requests, `cards export` and `cards
 * import` through a server in commands/transfer). The admin token comes from --admin-token, CARDS_ADMIN_TOKEN, the profile's
 * `adminToken`, or the token file beside a local store (--db), in that order; none is sent
 * when none is found (a loopback-only server needs none).
 */
import { CardsError } from '../../../core/errors.js';
import { LIMITS } from '../../../core/limits.js';
import {
  adminClient as client,
  cardPages,
  limitOf,
  type AdminFlags,
  type CardRowResult,
  type ListResult,
} from '../../admin-access.js';
import type { CommandContext } from '../../context.js';
import { resolveServer } from '../../settings.js';

export async function listCards(
  ctx: CommandContext,
  flags: AdminFlags & { limit?: string; cursor?: string; all?: boolean },
): Promise<ListResult> {
  const limit =
    limitOf(flags.limit, LIMITS.adminPageMax) ??
    String(flags.all ? LIMITS.adminPageMax : LIMITS.adminPageDefault);
  const cards: CardRowResult[] = [];
  let next_cursor: string | null = null;
  for await (const page of cardPages(client(ctx, flags), limit, flags.cursor)) {
    cards.push(...page.cards);
    next_cursor = page.next_cursor;
    if (!flags.all) break;
  }
  return { cards, next_cursor };
}

export interface HistoryResult {
  identity: string;
  chains: { revoked: boolean; cards: (CardRowResult & { created_at: number | null })[] }[];
}

export const history = (ctx: CommandContext, identity: string, flags: AdminFlags) =>
  client(ctx, flags).json<HistoryResult>('GET', 'adminIdentity', { param: identity });

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
  const result = await admin.json<{ cards: number }>('POST', 'adminReset', {
    body: '{"confirm":"reset"}',
    type: 'application/json',
  });
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
