/** `cards status` (a server's state, for scripts) and `cards open` (its page). */
import { declare } from '../../command.js';
import type { AdminFlags } from '../../admin-access.js';
import type { ConnectionFlags } from '../../settings.js';
import { adminFlags, serverFlags } from '../../flags.js';
import { plural } from '../../text.js';
import type { OpenResult, StatusResult } from './status.js';

const ADMIN_AUTH: Record<StatusResult['admin_auth'], string> = {
  'loopback-open': 'loopback: no token needed',
  token: 'admin token required',
  off: 'off (started with --no-admin): no page, admin commands or short card ids',
};

export default [
  declare({
    name: 'status',
    summary: "A server's state: reachable, version, cards, transparency log and its key.",
    flags: [adminFlags()],
    help: 'Exit 0 when the server answers, 6 when it cannot be reached, 7 when its admin API refuses the token. A server started with --no-admin says what its public routes tell (no log key) and that its admin API is off.',
    examples: ['cards status', 'cards status --json --url http://127.0.0.1:8080'],
    run: async (ctx, options: AdminFlags) => (await import('./status.js')).status(ctx, options),
    text: (r: StatusResult, s) =>
      [
        `${s.ok('reachable')}  ${r.url}  (cards ${r.version}, ${r.profile} profile)`,
        `cards      ${r.cards}`,
        r.log
          ? `log        ${r.log.origin}, ${plural(r.log.size, 'entry', 'entries')}\nlog key    ${r.log.vkey ?? s.dim('not known without the admin API (the server prints it at start)')}`
          : `log        ${s.dim('none (--no-log)')}`,
        `admin API  ${ADMIN_AUTH[r.admin_auth]}`,
      ].join('\n'),
  }),
  declare({
    name: 'open',
    summary: "Print the address of a server's page, and open it in a browser on a desktop.",
    flags: [serverFlags()],
    examples: ['cards open', 'cards open --url http://127.0.0.1:8080'],
    run: async (ctx, options: ConnectionFlags) => (await import('./status.js')).open(ctx, options),
    text: (r: OpenResult, s) =>
      r.opener ? `${r.url}  ${s.dim(`(opened with ${r.opener})`)}` : r.url,
  }),
];
