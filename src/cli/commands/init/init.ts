/**
 * `cards init`: writes a profile into the config file. On a terminal it asks for what the
 * flags did not give; without one (or with --yes) it takes the flags as they are.
 */
import { resolve } from 'node:path';
import { CardsError } from '../../../core/errors.js';
import { DEFAULT_DB, DEFAULT_URL, isLoopbackHost } from '../../../server/defaults.js';
import {
  configPath,
  openConfig,
  profileValue,
  type ProfileKey,
  type ProfileSettings,
} from '../../config-file.js';
import type { CommandContext } from '../../context.js';
import { ask, canPrompt, confirm, type Question } from '../../prompts.js';

export interface InitOptions {
  profile?: string;
  url?: string;
  identity?: string;
  compat?: string;
  appKey?: string;
  appConfig?: string;
  db?: string;
  serviceKey?: string;
  adminToken?: string;
  default?: boolean;
  force?: boolean;
  yes?: boolean;
}

export interface InitResult {
  path: string;
  profile: string;
  settings: ProfileSettings;
  isDefault: boolean;
  replaced: boolean;
}

const FLAG_HINT =
  'pass the settings as flags (--url, --identity, --compat, --db or --app-key) with --yes';

export async function init(ctx: CommandContext, options: InitOptions): Promise<InitResult> {
  const path = configPath(ctx);
  const document = openConfig(path);
  const config = document.data;
  const interactive = canPrompt(ctx) && options.yes !== true;
  let name = options.profile;
  const given: Record<string, string | undefined> = {
    url: options.url,
    identity: options.identity,
    compat: options.compat,
    appKey: options.appKey,
    db: options.db,
  };
  if (interactive) {
    const existing = config.profiles[name ?? 'default'] ?? {};
    const answers = await ask(ctx, firstQuestions(name, given, existing), FLAG_HINT);
    for (const [key, value] of Object.entries(answers))
      if (typeof value === 'string') given[key] = value;
    name ??=
      typeof answers.profile === 'string' && answers.profile !== '' ? answers.profile : 'default';
    // Then what signs the tokens: the store of a local `cards serve` (its app key sits beside
    // it), or an app key for a remote service. Stored as absolute paths.
    const local = isLoopback(given.url ?? DEFAULT_URL);
    const second: Question[] = [];
    if (local && options.db === undefined && given.appKey === undefined)
      second.push({
        type: 'input',
        name: 'db',
        message:
          'Store file of your local `cards serve` (its app key beside it signs your tokens; blank: none)',
        default: existing.db ?? resolve(ctx.cwd, DEFAULT_DB),
      });
    if (!local && given.appKey === undefined)
      second.push({
        type: 'input',
        name: 'appKey',
        message: 'App key file that signs your tokens (PEM; blank: none, pass --token later)',
        default: existing.appKey ?? '',
      });
    if (second.length) {
      const more = await ask(ctx, second, FLAG_HINT);
      if (typeof more.db === 'string') given.db = more.db;
      if (typeof more.appKey === 'string') given.appKey = more.appKey;
    }
  }
  name ??= 'default';
  const settings: ProfileSettings = {};
  const set = (key: ProfileKey, value: string | undefined): void => {
    if (value !== undefined && value !== '') settings[key] = profileValue(ctx, key, value);
  };
  set('url', given.url);
  set('identity', given.identity);
  set('compat', given.compat);
  set('appKey', given.appKey);
  set('appConfig', options.appConfig);
  set('db', given.db);
  set('serviceKey', options.serviceKey);
  set('adminToken', options.adminToken);
  const replaced = config.profiles[name] !== undefined;
  if (replaced && options.force !== true) {
    if (
      interactive &&
      !(await confirm(ctx, `Profile "${name}" exists in ${path}. Replace it?`, '--force'))
    )
      throw new CardsError('DECLINED');
    if (!interactive)
      throw new CardsError('FILE_EXISTS', `Profile "${name}" exists already in ${path}.`, {
        hint: 'pass --force to replace it, or --profile NAME for another',
      });
  }
  config.profiles[name] = settings;
  const isDefault =
    options.default === true || config.default === undefined || config.default === name;
  if (isDefault) config.default = name;
  document.write();
  return { path, profile: name, settings, isDefault, replaced };
}

/** The questions a newcomer can answer, for what the flags did not give. */
function firstQuestions(
  name: string | undefined,
  given: Record<string, string | undefined>,
  existing: ProfileSettings,
): Question[] {
  const questions: Question[] = [];
  if (name === undefined)
    questions.push({ type: 'input', name: 'profile', message: 'Profile name', default: 'default' });
  if (given.url === undefined)
    questions.push({
      type: 'input',
      name: 'url',
      message: `Service URL (a local \`cards serve\` is at ${DEFAULT_URL})`,
      default: existing.url ?? DEFAULT_URL,
    });
  if (given.identity === undefined)
    questions.push({
      type: 'input',
      name: 'identity',
      message: 'Your identity, the name your cards are for (blank: none)',
      default: existing.identity ?? '',
    });
  if (given.compat === undefined)
    questions.push({
      type: 'select',
      name: 'compat',
      message: 'Which kind of service is it?',
      choices: [
        { name: '`cards serve`, or a service that follows the Cards spec', value: 'service' },
        {
          name: "Virgil Security's cloud, or a server for its stock SDK (`serve --compat virgil`)",
          value: 'virgil',
        },
      ],
      default: existing.compat ?? 'service',
    });
  return questions;
}

function isLoopback(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}
