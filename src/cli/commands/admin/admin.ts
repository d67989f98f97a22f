/**
 * The admin commands, against a server's admin API: `cards list`, `cards history IDENTITY`,
 * `cards requests`, `cards reset --yes` (`cards export` and `cards import` through a server are
 * in commands/transfer). The admin token comes from --admin-token, CARDS_ADMIN_TOKEN, the profile's
 * `adminToken`, or the token file beside a local store (--db), in that order; none is sent
 * when none is found (a loopback-only server needs none).
 */
import { CardsError } from '../../../core/errors.js';
import { LIMITS } from '../../../core/limits.js';
import {
  adminClient as client,
  cardPages,
  type AdminFlags,
  type CardRowResult,
  type ListResult,
} from '../../admin-access.js';
import type { CommandContext } from '../../context.js';
import { resolveSettings } from '../../settings.js';

/** --limit as the server checks it: digits, from 1 to `max` (the admin API's page size). */
const limitOf = (value: string | undefined, max?: number): string | undefined => {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (n >= 1 && (max === undefined || n <= max)) return value;
  throw new CardsError(
    'USAGE',
    `--limit must be ${max === undefined ? 'a positive integer' : `an integer from 1 to ${max}`}, got "${value}".`,
  );
};

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

export interface RequestsResult {
  requests: {
    time: string;
    method: string;
    path: string;
    status: number;
    code: string | null;
    identity: string;
    ms: number;
  }[];
  total: number;
}

export const requests = (ctx: CommandContext, flags: AdminFlags & { limit?: string }) =>
  client(ctx, flags).json<RequestsResult>('GET', 'adminRequests', {
    query: { limit: limitOf(flags.limit) },
  });

export async function reset(
  ctx: CommandContext,
  flags: AdminFlags & { yes?: boolean },
): Promise<{ cards: number; url: string }> {
  if (!flags.yes)
    throw new CardsError('USAGE', 'cards reset empties the registry: pass --yes to confirm.');
  const result = await client(ctx, flags).json<{ cards: number }>('POST', 'adminReset', {
    body: '{"confirm":"reset"}',
    type: 'application/json',
  });
  return { ...result, url: resolveSettings(ctx, flags).url.value };
}
