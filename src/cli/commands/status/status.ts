/**
 * `cards status`: what a script asks of a server before it starts (reachable, its version and
 * wire profile, how many cards, its transparency log's origin, size and key, how the admin API
 * is guarded), from the admin API's info. A server without the admin API (`--no-admin`) still
 * says what its public routes tell: /health (version, profile, cards) and the log's checkpoint
 * (origin and size, C2SP tlog-checkpoint; its key is not published there). `cards open`: the
 * page's address, opened in a browser on a desktop.
 */
import { spawn } from 'node:child_process';
import type { AdminClient } from '../../../client/admin-client.js';
import { CardsError } from '../../../core/errors.js';
import { adminClient, type AdminFlags } from '../../admin-access.js';
import type { CommandContext } from '../../context.js';
import { fetchCheckpoint } from '../../log-follow.js';
import { RemoteLog } from '../../log-remote.js';
import { required, resolveServer, type ConnectionFlags } from '../../settings.js';

/** The admin API's `/_cards/info` (docs/http.md). */
interface Info {
  version: string;
  profile: string;
  cards: number;
  admin_auth: 'loopback-open' | 'token';
  log: { origin: string; vkey: string; size: number } | null;
}

/** `/health` (docs/http.md). */
interface Health {
  version: string;
  profile: string;
  cards: number;
}

export interface StatusResult extends Omit<Info, 'admin_auth' | 'log'> {
  url: string;
  reachable: true;
  /** `off`: the server has no admin API (`cards serve --no-admin`). */
  admin_auth: Info['admin_auth'] | 'off';
  /** `vkey` is null when the admin API is off: only its info names the log's key. */
  log: { origin: string; vkey: string | null; size: number } | null;
}

/**
 * What the public routes of a server without the admin API tell. A service with no /health
 * either is not a `cards serve`: the admin API's refusal (`noAdmin`) stands.
 */
async function publicState(
  admin: AdminClient,
  log: RemoteLog,
  noAdmin: CardsError,
): Promise<Omit<StatusResult, 'url' | 'reachable'>> {
  const health = await admin.json<Health>('GET', 'health').catch((err: unknown) => {
    throw err instanceof CardsError && err.code === 'ROUTE_NOT_FOUND' ? noAdmin : err;
  });
  const checkpoint = await fetchCheckpoint(log, undefined).then(
    (read) => read.checkpoint,
    (err: unknown) => {
      if (err instanceof CardsError && err.code === 'LOG_DISABLED') return null;
      throw err;
    },
  );
  return {
    version: health.version,
    profile: health.profile,
    cards: health.cards,
    admin_auth: 'off',
    log: checkpoint && { origin: checkpoint.origin, vkey: null, size: checkpoint.size },
  };
}

export async function status(ctx: CommandContext, flags: AdminFlags): Promise<StatusResult> {
  const url = resolveServer(ctx, flags).url.value;
  const admin = adminClient(ctx, flags);
  let info: Info;
  try {
    info = await admin.json<Info>('GET', 'adminInfo');
  } catch (err) {
    if (!(err instanceof CardsError) || err.code !== 'ROUTE_NOT_FOUND') throw err;
    const log = new RemoteLog(url, required(flags, 'timeout').value);
    return { url, reachable: true, ...(await publicState(admin, log, err)) };
  }
  return {
    url,
    reachable: true,
    version: info.version,
    profile: info.profile,
    cards: info.cards,
    admin_auth: info.admin_auth,
    log: info.log,
  };
}

export interface OpenResult {
  url: string;
  /** The program asked to show it, when there is a desktop to show it on. */
  opener: string | null;
}

/** The program that opens a URL on this desktop; none without one (a server, CI, ssh). */
function opener(ctx: CommandContext): string | null {
  if (process.platform === 'darwin') return 'open';
  if (process.platform === 'win32') return 'explorer';
  return ctx.env.DISPLAY || ctx.env.WAYLAND_DISPLAY ? 'xdg-open' : null;
}

export function open(ctx: CommandContext, flags: ConnectionFlags): OpenResult {
  const url = `${resolveServer(ctx, flags).url.value}/`;
  const program = opener(ctx);
  if (program !== null) {
    // Detached and unwaited: the browser outlives this command. A desktop without the program
    // still has the address printed.
    const child = spawn(program, [url], { detached: true, stdio: 'ignore', env: ctx.env });
    child.on('error', () => undefined);
    child.unref();
  }
  return { url, opener: program };
}
