/** `cards config`, `cards config set`, `cards config use`: the settings in force, a profile changed. */
import { Argument } from 'commander';
import { declare } from '../../command.js';
import { connectionFlags, serviceKeyFlag } from '../../flags.js';
import { settingLines, type Style } from '../../text.js';
import type { ConfigChange, ConfigResult, ConfigSetOptions } from './config.js';

const config = () => import('./config.js');
const changed = (r: ConfigChange, s: Style): string =>
  [
    `${s.ok('profile')} "${r.profile}"${r.isDefault ? ' (default)' : ''} in ${r.path}`,
    ...settingLines(r.settings),
  ].join('\n');
const valueText = (
  v: { value: unknown; source: string; file?: string } | null,
  s: Style,
): string =>
  v
    ? `${Array.isArray(v.value) ? v.value.join(', ') : String(v.value)} ${s.dim(`(${v.file ? `${v.source} file ${v.file}` : v.source})`)}`
    : s.dim('(not set)');

export default [
  declare({
    name: 'config',
    summary: 'Show the config file, its profiles and each setting in force with its source.',
    flags: [connectionFlags(), serviceKeyFlag()],
    help: `Each setting comes from the first of: a flag, the environment, the config profile
(source "config"), the default; a URL set nowhere is the one a running \`cards serve\` of --db's
store wrote beside it (source "address", its file named). The serve section is what
\`cards serve\` would start with here.`,
    examples: [
      'cards config',
      'cards config --profile prod --json',
      'cards config set url http://127.0.0.1:9000',
      'cards config use prod',
    ],
    run: async (ctx, options, _args, command) => (await config()).showConfig(ctx, options, command),
    text: (r: ConfigResult, s) =>
      [
        `config file  ${r.path}${r.profiles.length ? '' : s.dim(' (none yet: `cards init` writes one)')}`,
        `profiles     ${r.profiles.length ? r.profiles.map((p) => (p === r.activeProfile ? s.bold(`${p}*`) : p)).join(', ') : s.dim('(none)')}`,
        `keystore     ${r.home}/keys`,
        ...Object.entries(r.settings).map(([k, v]) => `  ${k.padEnd(12)} ${valueText(v, s)}`),
        'serve',
        ...Object.entries(r.serve).map(([k, v]) => `  ${k.padEnd(16)} ${valueText(v, s)}`),
      ].join('\n'),
  }),
  declare({
    name: 'config set',
    summary: 'Set one setting of a profile (the default one unless --profile).',
    args: [
      new Argument(
        '<key>',
        'url, identity, compat, db, app-key, app-config, service-key, admin-token or log-key',
      ),
      new Argument('<value>', 'its value (file paths are stored absolute)'),
    ],
    examples: [
      'cards config set url https://cards.example.com',
      'cards --profile local config set db ./cards.json',
    ],
    run: async (ctx, options: Omit<ConfigSetOptions, 'key' | 'value'>, [key, value]) =>
      (await config()).configSet(ctx, { ...options, key: key as string, value: value as string }),
    text: changed,
  }),
  declare({
    name: 'config use',
    summary: 'Make a profile the default.',
    args: [new Argument('<profile>', 'a profile of the config file')],
    examples: ['cards config use prod'],
    run: async (ctx, _options, [profile]) =>
      (await config()).configUse(ctx, { profile: profile as string }),
    text: changed,
  }),
];
