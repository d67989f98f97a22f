/** `cards init`: a config profile written. */
import { Option } from 'commander';
import { declare } from '../../command.js';
import { settingLines } from '../../text.js';
import type { InitOptions, InitResult } from './init.js';

export default declare({
  name: 'init',
  summary: 'Write a config profile (asks on a terminal; flags answer instead).',
  flags: [
    new Option('--url <url>', 'service base URL'),
    new Option('--identity <id>', 'default identity'),
    new Option('--compat <profile>', 'wire words').choices(['service', 'virgil']),
    new Option('--app-key <file>', 'app private key that mints tokens'),
    new Option('--app-config <file>', 'vendor app credentials JSON'),
    new Option('--db <file>', 'store of a local `cards serve`'),
    new Option('--service-key <key>', "the service's public key, for `cards inspect`"),
    new Option('--admin-token <token>', "the server's admin token, for the admin commands"),
    new Option('--default', 'make this the default profile'),
    new Option('--force', 'replace the profile if it exists'),
    new Option('--yes', 'ask nothing; take the flags as they are'),
  ],
  help: `--profile NAME names the profile (default "default"). The config file is $CARDS_CONFIG,
else $CARDS_HOME/config.json (default ~/.cards/config.json).`,
  examples: [
    'cards init',
    'cards init --profile prod --url https://cards.example.com --app-key app.pem --identity alice --yes',
  ],
  run: async (ctx, options: InitOptions) => (await import('./init.js')).init(ctx, options),
  text: (r: InitResult, s) =>
    [
      `${r.replaced ? 'replaced' : s.ok('wrote')} profile "${r.profile}"${r.isDefault ? ' (default)' : ''} in ${r.path}`,
      ...settingLines(r.settings),
    ].join('\n'),
});
