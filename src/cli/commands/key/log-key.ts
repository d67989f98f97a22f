/**
 * `cards key log`: the verifier key (C2SP signed-note) of the transparency log a server keeps
 * now, from its admin API's info. A reset begins a new log under a key of its own (docs/log.md).
 */
import { CardsError } from '../../../core/errors.js';
import { adminClient, type AdminFlags } from '../../admin-access.js';
import type { CommandContext } from '../../context.js';
import { resolveServer } from '../../settings.js';

export interface LogKeyResult {
  url: string;
  origin: string;
  vkey: string;
}

export async function logKey(ctx: CommandContext, flags: AdminFlags): Promise<LogKeyResult> {
  const url = resolveServer(ctx, flags).url.value;
  const { log } = await adminClient(ctx, flags).json<{
    log: { origin: string; vkey: string } | null;
  }>('GET', 'adminInfo');
  if (!log)
    throw new CardsError('LOG_DISABLED', `The server at ${url} keeps no transparency log.`, {
      hint: 'it was started with --no-log',
    });
  return { url, origin: log.origin, vkey: log.vkey };
}
