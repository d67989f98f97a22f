/** `cards status` (a server's state, for scripts) and `cards open` (its page). */
import { declare } from '../../command.js';
import type { AdminFlags } from '../../admin-access.js';
import type { ConnectionFlags } from '../../settings.js';
import { adminFlags, serverFlags } from '../../flags.js';
import { plural } from '../../text.js';
import type { OpenResult, StatusResult } from './status.js';

export default [
  declare({
    name: 'status',
    summary: "A server's state: reachable, version, cards, transparency log and its key.",
    flags: [adminFlags()],
    help: 'Exit 0 when the server answers, 6 when it cannot be reached, 7 when its admin API refuses the token.',
    examples: ['cards status', 'cards status --json --url http://127.0.0.1:8080'],
    run: async (ctx, options: AdminFlags) => (await import('./status.js')).status(ctx, options),
    text: (r: StatusResult, s) =>
      [
        `${s.ok('reachable')}  ${r.url}  (cards ${r.version}, ${r.profile} profile)`,
        `cards      ${r.cards}`,
        r.log
          ? `log        ${r.log.origin}, ${plural(r.log.size, 'entry', 'entries')}\nlog key    ${r.log.vkey}`
          : `log        ${s.dim('none (--no-log)')}`,
        `admin API  ${r.admin_auth === 'loopback-open' ? 'loopback: no token needed' : 'admin token required'}`,
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
