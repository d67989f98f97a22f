/**
 * `cards status`: what a script asks of a server before it starts (reachable, its version and
 * wire profile, how many cards, its transparency log's origin, size and key, how the admin API
 * is guarded), from the admin API's info. `cards open`: the page's address, opened in a browser
 * on a desktop.
 */
import { spawn } from 'node:child_process';
import { adminClient, type AdminFlags } from '../../admin-access.js';
import type { CommandContext } from '../../context.js';
import { resolveServer, type ConnectionFlags } from '../../settings.js';

/** The admin API's `/_cards/info` (docs/http.md). */
interface Info {
  version: string;
  profile: string;
  cards: number;
  admin_auth: 'loopback-open' | 'token';
  log: { origin: string; vkey: string; size: number } | null;
}

export interface StatusResult extends Info {
  url: string;
  reachable: true;
}

export async function status(ctx: CommandContext, flags: AdminFlags): Promise<StatusResult> {
  const url = resolveServer(ctx, flags).url.value;
  const info = await adminClient(ctx, flags).json<Info>('GET', 'adminInfo');
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
