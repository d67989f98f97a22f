/**
 * Where each option's value comes from, the one place that layers them (with commander's value
 * sources): the command line, else the environment variable the option declares (`.env()`),
 * else the config profile (options marked `fromProfile`, source 'config'), else its
 * `.default()`. A command receives the values with their `sources`, which `cards config` shows.
 *
 * The environment is the command's (CommandContext.env, the process's own in production). An
 * empty variable is unset. A switch's variable says what it means, 1/true/yes on and 0/false/no
 * off, where commander would take any value as "on"; anything else is a usage error naming it.
 */
import { InvalidArgumentError, type Command, type Option } from 'commander';
import { CardsError } from '../core/errors.js';
import { configPath, selectProfile, type ProfileSettings } from './config-file.js';
import type { CommandContext } from './context.js';
import { invalidValue, profileSettingOf } from './flags.js';

/** Where a value came from, as `cards config` shows it (commander's 'cli' is 'flag'). */
export type Source = 'flag' | 'env' | 'config' | 'default';
export type Sources = Readonly<Partial<Record<string, Source>>>;

/** Options as a command receives them: each value, and where it came from. */
export interface Sourced {
  readonly sources?: Sources;
  /**
   * The url of the profile the values were layered from, a flag or variable overriding it or
   * not: the server the profile's credentials belong to (settings.ts profileWithheld). Absent
   * when no value was looked up in a profile, or the profile holds no url.
   */
  readonly profileUrl?: string;
}

const SOURCE_NAMES: Record<string, Source> = {
  cli: 'flag',
  env: 'env',
  config: 'config',
  default: 'default',
};

/** A raw value through the option's parser (its choices, its argParser), named by `where`. */
function parse(option: Option, raw: string, where: string): unknown {
  if (!option.parseArg) return option.variadic ? [raw] : raw;
  try {
    return option.parseArg(raw, undefined);
  } catch (err) {
    if (err instanceof InvalidArgumentError) throw invalidValue(where, raw, err.message);
    throw err;
  }
}

function fromEnvironment(option: Option, variable: string, raw: string): unknown {
  if (option.required || option.optional) return parse(option, raw, variable);
  const word = raw.trim().toLowerCase();
  const on = ['1', 'true', 'yes'].includes(word)
    ? true
    : ['0', 'false', 'no'].includes(word)
      ? false
      : undefined;
  if (on === undefined)
    throw new CardsError(
      'USAGE',
      `${variable} must be 1, true or yes (on) or 0, false or no (off), got "${raw}".`,
    );
  return option.negate ? !on : on;
}

/**
 * Layers the values of `command` and of the global flags (the root's), and returns them with
 * their sources. The profile is read only when an option asks for it.
 */
export function resolveOptions<O extends object>(
  command: Command,
  ctx: CommandContext,
): O & { sources: Sources; profileUrl?: string } {
  let root = command;
  while (root.parent) root = root.parent;
  let profile: ProfileSettings | undefined | null = null;
  const profileSettings = (): ProfileSettings | undefined => {
    if (profile !== null) return profile;
    // --profile (CARDS_PROFILE) is a global flag: layered already, the root coming first.
    const requested = root.getOptionValue('profile') as string | undefined;
    const selected = selectProfile(configPath(ctx), requested);
    if (selected && requested === undefined)
      root.setOptionValueWithSource('profile', selected.name, 'config');
    return (profile = selected?.settings);
  };
  const sources: Partial<Record<string, Source>> = {};
  for (const at of new Set([root, command]))
    for (const option of at.options) {
      const key = option.attributeName();
      if (at.getOptionValueSource(key) !== 'cli') layer(at, option, ctx, profileSettings);
      const source = SOURCE_NAMES[at.getOptionValueSource(key) ?? ''];
      if (source) sources[key] = source;
    }
  // Set by profileSettings() when a value was looked up in the profile.
  const profileUrl = (profile as ProfileSettings | undefined | null)?.url;
  return {
    ...(root.opts() as O),
    ...(command.opts() as O),
    sources,
    ...(profileUrl !== undefined && { profileUrl }),
  };
}

function layer(
  command: Command,
  option: Option,
  ctx: CommandContext,
  profile: () => ProfileSettings | undefined,
): void {
  const key = option.attributeName();
  const variable = option.envVar;
  const raw = variable === undefined ? undefined : ctx.env[variable] || undefined;
  if (variable !== undefined && raw !== undefined) {
    command.setOptionValueWithSource(key, fromEnvironment(option, variable, raw), 'env');
    return;
  }
  const setting = profileSettingOf(option);
  const stored = setting === undefined ? undefined : profile()?.[setting.key];
  const value = stored === undefined || !setting?.derive ? stored : setting.derive(stored);
  if (setting !== undefined && value !== undefined) {
    command.setOptionValueWithSource(
      key,
      parse(option, value, `the profile's ${setting.key}`),
      'config',
    );
    return;
  }
  // commander's own default: a --no-… switch is on unless given.
  const fallback: unknown = option.negate ? true : option.defaultValue;
  command.setOptionValueWithSource(key, fallback, fallback === undefined ? undefined : 'default');
}
