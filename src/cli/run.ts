/**
 * Runs one command for commander's action: builds the context from the process, calls the
 * command module, prints its result (output.ts) and sets the exit status. Errors go on to the
 * funnel in main.ts, with a next step added here when the error has none.
 */
import { CardsError, numberOf, type ErrorCode } from '../core/errors.js';
import { EXIT } from './exit-status.js';
import { processContext, type CommandContext } from './context.js';
import { emit, type OutputFlags } from './output.js';
import { escapeTerminal } from '../core/terminal-text.js';
import type { ViewName } from './views.js';

export async function run<T>(
  view: ViewName,
  flags: OutputFlags,
  command: (ctx: CommandContext) => T | Promise<T>,
  verdict?: (data: T) => { exit: number; summary: string } | undefined,
): Promise<void> {
  const ctx = processContext();
  refuseEmptyFlags(flags);
  let data: T;
  try {
    data = await command(ctx);
  } catch (err) {
    throw withHint(err, view);
  }
  emit(ctx, view, data, flags);
  const failed = verdict?.(data);
  if (failed && failed.exit !== EXIT.ok) {
    const number = numberOf('VERIFICATION_FAILED');
    ctx.stderr.write(`error VERIFICATION_FAILED (${number}): ${escapeTerminal(failed.summary)}\n`);
    process.exitCode = failed.exit;
  }
}

const HINTS: Partial<Record<ErrorCode, string>> = {
  UNREACHABLE:
    'is the service running? Start a local one with `cards serve`, or point --url (CARDS_URL) at yours',
  CARD_NOT_FOUND: 'check the id; `cards search IDENTITY` lists the cards of an identity',
  ROUTE_NOT_FOUND: 'is --url the base address of a Cards Service (no path)?',
  AUTH_MISSING: 'pass --token, or --app-key FILE to mint one',
  AUTH_SCHEME: 'the service expects other wire words: try --compat virgil (or --compat service)',
  TOKEN_MALFORMED: 'mint a fresh token with `cards jwt --identity ID`',
  TOKEN_SIGNATURE:
    'the service does not trust the key the token was signed with: check --token/--app-key, or --db for a local `cards serve`',
  TOKEN_EXPIRED:
    'mint a fresh token with `cards jwt --identity ID`, or pass --app-key to mint one per request',
  TOKEN_NOT_YET_VALID: "check this machine's clock",
  TOKEN_ALGORITHM: 'mint a token with `cards jwt` (EdDSA) or --app-config (VEDS512)',
  TOKEN_CLAIMS: 'mint a token with `cards jwt --identity ID`',
  IDENTITY_MISMATCH:
    "the token's identity must equal the card's: mint tokens with --app-key instead of a fixed --token",
  PREVIOUS_SUPERSEDED:
    'only the newest card of a chain can be replaced or revoked; the message names it, and `cards search IDENTITY` shows it',
  PREVIOUS_NOT_FOUND: 'check --previous; `cards search IDENTITY` lists the cards of an identity',
  CHAIN_REVOKED:
    'this chain is revoked already: a replacement cannot extend it; create a new card without --previous',
  SNAPSHOT_NOT_UNIQUE:
    'an identical card exists already (same key, identity and time); wait a second or pass --created-at',
  SEARCH_TOO_MANY: 'the CLI batches by 50; this service allows fewer',
};

/** Hints that fit one command better than the general one above. */
const COMMAND_HINTS: Partial<Record<ViewName, Partial<Record<ErrorCode, string>>>> = {
  revoke: {
    CHAIN_REVOKED:
      'nothing to do: the chain is revoked already (`cards get ID` shows its state; revoked chains are left out of search)',
  },
  unregister: {
    CARD_NOT_FOUND:
      'check the identity as it was written (`cards key list` lists the keystore; `cards search IDENTITY` the live cards)',
  },
};

function withHint(err: unknown, view: ViewName): unknown {
  if (!(err instanceof CardsError) || err.hint) return err;
  const hint = COMMAND_HINTS[view]?.[err.code] ?? HINTS[err.code];
  if (!hint) return err;
  return new CardsError(err.code, err.message, { hint, cause: err.cause, partial: err.partial });
}

/**
 * An explicitly empty flag (`--identity ""`) is a mistake, often an unset shell variable: it
 * must not fall back silently to the environment or the profile (issue 12.6).
 */
function refuseEmptyFlags(flags: object): void {
  for (const [name, value] of Object.entries(flags)) {
    if (value !== '' && !(Array.isArray(value) && value.includes(''))) continue;
    const flag = `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    throw new CardsError('USAGE', `${flag} is empty.`, {
      hint: `give ${flag} a value, or leave the flag out to use the environment or the profile`,
    });
  }
}
