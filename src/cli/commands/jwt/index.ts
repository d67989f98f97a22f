/** `cards jwt`: a token the service accepts, for an identity. */
import { Option } from 'commander';
import { declare } from '../../command.js';
import { connectionFlags, duration } from '../../flags.js';
import type { JwtOptions, JwtResult } from './jwt.js';

export default declare({
  name: 'jwt',
  summary: 'Mint an access token for an identity, signed by the app key.',
  flags: [
    connectionFlags(),
    new Option('--ttl <duration>', 'lifetime: 30s, 20m, 1h, 7d')
      .default(3600, '1h')
      .argParser(duration),
    new Option(
      '--store <url>',
      'sign with the app key kept in this PostgreSQL store by `cards serve --store URL` (a file: as --db)',
    ),
  ],
  help: `Signs with --app-key, or the app key of a local \`cards serve\` found through --db. With
--app-config (the vendor CLI's app credentials) it mints the stock VEDS512 format. With
--store postgres://… it signs with the app key the servers on that database keep there.`,
  examples: [
    'cards jwt --identity alice',
    `curl -H 'Content-Type: application/json' -H "Authorization: Service $(cards jwt --identity alice)" http://127.0.0.1:8080/card/v5/ID`,
    'cards jwt --identity alice --compat virgil --app-config app.json --ttl 20m',
    'cards jwt --identity alice --store postgres://cards@db:5432/cards',
  ],
  run: async (ctx, options: JwtOptions) => (await import('./jwt.js')).jwt(ctx, options),
  text: (r: JwtResult) => r.token,
});
