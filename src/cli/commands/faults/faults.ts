/**
 * `cards faults`: the admin API's /_cards/faults. The rule is checked by the server (one parser,
 * core/fault-rule.ts, for the API, this command and `cards serve --faults FILE`).
 */
import { CardsError } from '../../../core/errors.js';
import { adminClient, type AdminFlags } from '../../admin-access.js';
import type { CommandContext } from '../../context.js';

export interface FaultAddFlags extends AdminFlags {
  route?: string;
  method?: string;
  identity?: string;
  probability?: string;
  count?: number;
  error?: string;
  status?: number;
  delay?: string;
  drop?: boolean;
}

export interface ListedFault {
  id: number;
  hits: number;
  remaining: number | null;
  route?: string;
  method?: string;
  identity?: string;
  probability: number;
  error?: string;
  status?: number;
  delay?: string;
  drop?: boolean;
}

export interface FaultsResult {
  faults: ListedFault[];
}

function probabilityOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const p = Number(text);
  if (text.trim() === '' || !Number.isFinite(p))
    throw new CardsError(
      'USAGE',
      `--probability must be a number above 0 and at most 1, got "${text}".`,
    );
  return p;
}

export async function addFault(ctx: CommandContext, flags: FaultAddFlags): Promise<FaultsResult> {
  const { route, method, identity, count, error, status, delay, drop } = flags;
  const rule = {
    route,
    method,
    identity,
    probability: probabilityOf(flags.probability),
    count,
    error,
    status,
    delay,
    drop,
  };
  return adminClient(ctx, flags).json<FaultsResult>('POST', 'adminFaultsAdd', {
    body: JSON.stringify(rule),
    type: 'application/json',
  });
}

export const listFaults = (ctx: CommandContext, flags: AdminFlags) =>
  adminClient(ctx, flags).json<FaultsResult>('GET', 'adminFaults');

export const clearFaults = (ctx: CommandContext, flags: AdminFlags) =>
  adminClient(ctx, flags).json<{ cleared: number }>('DELETE', 'adminFaultsClear');
