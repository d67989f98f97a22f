/**
 * Short card ids, as in git: wherever a command declares a card id (flags.ts `cardIdInput`), a
 * prefix of 8 to 63 hex digits that exactly one card id starts with stands for that id. The run
 * funnel (run.ts) resolves them here, the one place, before the command runs: through the admin
 * API of the server at --url (GET /_cards/cards?prefix=, answered from its store's index). A
 * service without that API (the deployed Cards Service) is refused with a clear message rather
 * than guessed at; so is a command that works offline (`cards build`).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CardsPage } from '../core/admin-rows.js';
import { CardsError } from '../core/errors.js';
import { CARD_ID_PATTERN } from '../core/limits.js';
import { adminClient, type AdminFlags } from './admin-access.js';
import type { CommandContext } from './context.js';
import { resolveServer } from './settings.js';
import { cardIdKindOf, type CardIdKind } from './flags.js';

/** The fewest hex digits a short card id has (git's default abbreviation is 7; ids here are 64). */
const SHORT_ID_MIN = 8;
/** Matching ids an ambiguous prefix lists. */
const LISTED = 10;

const HEX = /^[0-9a-f]+$/i;

/**
 * The command's arguments with every short card id made whole; its card-id flags in `options`
 * are made whole in place. Values that are not hex (a file, a typo) are left to the command.
 */
export async function wholeCardIds(
  ctx: CommandContext,
  command: Command,
  options: AdminFlags & Record<string, unknown>,
): Promise<string[]> {
  const args = [...(command.processedArgs as unknown[])] as string[];
  const at = (kind: CardIdKind | undefined, value: unknown, where: string) =>
    kind !== undefined && typeof value === 'string'
      ? wholeCardId(ctx, command, options, value, kind, where)
      : undefined;
  for (const [i, argument] of command.registeredArguments.entries()) {
    const whole = await at(cardIdKindOf(argument), args[i], argument.name().toUpperCase());
    if (whole !== undefined) args[i] = whole;
  }
  for (const option of command.options) {
    const name = option.attributeName();
    const whole = await at(cardIdKindOf(option), options[name], option.long ?? name);
    if (whole !== undefined) options[name] = whole;
  }
  return args;
}

async function wholeCardId(
  ctx: CommandContext,
  command: Command,
  options: AdminFlags,
  value: string,
  kind: CardIdKind,
  where: string,
): Promise<string> {
  if (CARD_ID_PATTERN.test(value) || !HEX.test(value) || value.length > 64) return value;
  if (kind === 'id-or-file' && existsSync(resolve(ctx.cwd, value))) return value;
  const orFile = kind === 'id-or-file' ? ', and no file has that name' : '';
  if (value.length < SHORT_ID_MIN)
    throw new CardsError(
      'USAGE',
      `${where} "${value}" is too short for a card id: give at least ${SHORT_ID_MIN} of its hex digits, or all 64${orFile}.`,
    );
  if (!command.options.some((option) => option.long === '--url'))
    throw new CardsError(
      'USAGE',
      `${where} "${value}" is a short card id, and \`cards ${command.name()}\` works offline: give all 64 hex digits.`,
      { hint: '`cards search IDENTITY` prints whole ids' },
    );
  return lookUp(ctx, options, value.toLowerCase(), where);
}

/** The one card id starting with `prefix`, asked of the admin API of the server at --url. */
async function lookUp(
  ctx: CommandContext,
  options: AdminFlags,
  prefix: string,
  where: string,
): Promise<string> {
  const admin = adminClient(ctx, options);
  // The server asked: --url, or the one serving ./cards.json where no URL is set.
  const url = resolveServer(ctx, options).url.value;
  let page: CardsPage;
  try {
    page = await admin.json<CardsPage>('GET', 'adminCards', {
      query: { prefix, limit: String(LISTED) },
    });
  } catch (err) {
    throw noLookUp(err, where, prefix, url);
  }
  const [first, second] = page.cards;
  // A server that ignored the prefix (no such parameter) answers cards that do not match it.
  if (page.cards.some((card) => !card.id.startsWith(prefix)))
    throw noLookUp(undefined, where, prefix, url);
  if (first === undefined)
    throw new CardsError('CARD_NOT_FOUND', `No card id starts with ${prefix} (${where}).`);
  if (second === undefined) return first.id;
  const more = page.next_cursor === null ? '' : '\n  … and more';
  throw new CardsError(
    'CARD_ID_AMBIGUOUS',
    `${where} ${prefix} is ambiguous: card ids starting with it:\n${page.cards
      .map((card) => `  ${card.id}  ${card.identity}`)
      .join('\n')}${more}`,
    { hint: 'give more of its hex digits' },
  );
}

/** Why a short id could not be looked up: the server has no admin API, or refused it. */
function noLookUp(err: unknown, where: string, prefix: string, url: string): unknown {
  if (err instanceof CardsError && (err.code === 'UNREACHABLE' || err.code === 'CARD_NOT_FOUND'))
    return err;
  const refused =
    err instanceof CardsError && /^ADMIN_TOKEN/.test(err.code) ? ` (${err.message})` : '';
  return new CardsError(
    'USAGE',
    `${where} ${prefix} is a short card id, and ${url} does not look it up: short ids are found through the admin API of \`cards serve\`${refused}.`,
    {
      hint: refused
        ? 'give all 64 hex digits, or the admin token (--admin-token where a command takes it, or run beside the store)'
        : 'give all 64 hex digits (`cards search IDENTITY` prints them)',
      cause: err,
    },
  );
}
