/**
 * The admin commands (issue 15), against a server's admin API: `cards list`, `cards history
 * IDENTITY`, `cards requests`, `cards reset --yes`, `cards export --url`, `cards import FILE
 * --url`. The admin token comes from --admin-token, CARDS_ADMIN_TOKEN, the profile's
 * `adminToken`, or the token file beside a local store (--db), in that order; none is sent
 * when none is found (a loopback-only server needs none).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CardsError } from '../../core/errors.js';
import {
  adminClient as client,
  cardPages,
  type AdminFlags,
  type CardRowResult,
  type ListResult,
} from '../admin-access.js';
import type { CommandContext } from '../context.js';
import { resolveSettings } from '../settings.js';

const limitOf = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new CardsError('USAGE', `--limit must be a positive integer, got "${value}".`);
  return value;
};

export async function listCards(
  ctx: CommandContext,
  flags: AdminFlags & { limit?: string; cursor?: string; all?: boolean },
): Promise<ListResult> {
  const limit = limitOf(flags.limit) ?? (flags.all ? '1000' : '100');
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

/** Streams GET /_cards/export to --out or stdout; returns the lines written. */
export async function exportCards(
  ctx: CommandContext,
  flags: AdminFlags & { out?: string },
): Promise<{ cards: number; out: string }> {
  const response = await client(ctx, flags).request('GET', 'adminExport');
  let lines = 0;
  const counted = Readable.fromWeb(response.body as never).map((chunk: Buffer) => {
    for (const byte of chunk) if (byte === 10) lines++;
    return chunk;
  });
  const sink = flags.out
    ? createWriteStream(flags.out, { flags: 'wx' })
    : new Writable({ write: (chunk, _e, done) => (ctx.stdout.write(chunk), done()) });
  await pipeline(counted, sink);
  return { cards: lines, out: flags.out ?? '-' };
}

export async function importCards(
  ctx: CommandContext,
  file: string,
  flags: AdminFlags & { append?: boolean },
): Promise<{ imported: number; skipped: number; cards: number }> {
  const source =
    file === '-'
      ? Readable.from(ctx.stdin as AsyncIterable<Buffer>)
      : createReadStream(file).on('error', () => undefined);
  if (file !== '-')
    await new Promise<void>((resolve, reject) => {
      source.once('readable', resolve);
      source.once('error', (err: NodeJS.ErrnoException) =>
        reject(
          err.code === 'ENOENT' ? new CardsError('FILE_NOT_FOUND', `${file} does not exist.`) : err,
        ),
      );
    });
  return client(ctx, flags).json('POST', 'adminImport', {
    query: { append: flags.append ? 'true' : undefined },
    body: Readable.toWeb(source) as ReadableStream<Uint8Array>,
    type: 'application/x-ndjson',
  });
}
