/**
 * The CLI's one run/error funnel: commander parses, value-sources.ts layers the values, the
 * command runs, its result is printed (output.ts) or its failure reported (report-error.ts) in
 * the one format, and the exit status is the one of docs/errors.md. Every command goes through
 * it, `serve`, `export`, `import`, `db migrate` and `witness serve` too. What prints loads only
 * when a command runs, so `cards --help` and `--version` stay fast.
 */
import { CommanderError, type Command } from 'commander';
import { CardsError, numberOf, reworded, type ErrorCode } from '../core/errors.js';
import { escapeTerminal } from '../core/terminal-text.js';
import { EXIT } from './exit-status.js';
import type { AnyDeclaration, GlobalFlags } from './command.js';
import type { CommandContext } from './context.js';
import type { Source } from './value-sources.js';
import { buildProgram } from './program.js';

/** Runs `cards ARGS…` in `ctx`; returns the exit status. */
export async function runCli(args: readonly string[], ctx: CommandContext): Promise<number> {
  let status: number = EXIT.ok;
  const program = buildProgram(ctx, async (declaration, command) => {
    status = await execute(declaration, command, ctx);
  });
  try {
    await program.parseAsync(args, { from: 'user' });
    return status;
  } catch (err) {
    const { reportError, fromCommander, missingCommand } = await import('./report-error.js');
    // --json anywhere among the arguments: the error document goes on stdout as well (one
    // line after a --follow's NDJSON).
    const json = args.includes('--json');
    if (!(err instanceof CommanderError))
      return reportError(ctx, err, json, args.includes('--follow'));
    // --help and --version end here, with exit code 0.
    if (err.exitCode === 0) return EXIT.ok;
    // `cards` or a group (`cards log`) without its command printed its help on stderr: then
    // the USAGE error as every refusal says it (one document on stdout under --json).
    if (err.code === 'commander.help') return reportError(ctx, missingCommand(program, args), json);
    return reportError(ctx, fromCommander(err, program), json);
  }
}

async function execute(
  declaration: AnyDeclaration,
  command: Command,
  ctx: CommandContext,
): Promise<number> {
  const { resolveOptions } = await import('./value-sources.js');
  const options = resolveOptions<GlobalFlags & Record<string, unknown>>(command, ctx);
  refuseEmptyFlags(options);
  let result: unknown;
  try {
    const { wholeCardIds } = await import('./card-ids.js');
    const args = await wholeCardIds(ctx, command, options);
    result = await declaration.run?.(ctx, options, args, command);
  } catch (err) {
    if (declaration.fileHint) {
      const { isFileSystemError } = await import('./report-error.js');
      if (isFileSystemError(err)) err.hint ??= declaration.fileHint;
    }
    throw withHint(err, declaration.hints?.[(err as CardsError).code], options.sources?.url);
  }
  if (result === undefined) return EXIT.ok;
  const { emit } = await import('./output.js');
  emit(ctx, declaration.text, result, options);
  const failed = declaration.verdict?.(result);
  if (!failed || failed.exit === EXIT.ok) return EXIT.ok;
  const number = numberOf('VERIFICATION_FAILED');
  ctx.stderr.write(`error VERIFICATION_FAILED (${number}): ${escapeTerminal(failed.summary)}\n`);
  return failed.exit;
}

const HINTS: Partial<Record<ErrorCode, string>> = {
  CARD_NOT_FOUND: 'check the id; `cards search IDENTITY` lists the cards of an identity',
  ROUTE_NOT_FOUND: 'is --url the base address of a Cards Service (no path)?',
  IMPORT_INVALID:
    'import what `cards export` or GET /_cards/export wrote, one record per line (a dump of `cards serve --export-on-exit`, its keys on line 1, starts a server instead: `cards serve --import FILE`)',
  AUTH_MISSING: 'pass --token, or --app-key FILE to mint one',
  ADMIN_AUTH_MISSING:
    'pass --admin-token TOKEN (CARDS_ADMIN_TOKEN): the "admin token:" line `cards serve` printed (kept beside its store as STORE.admin-token, and read from there when --db names that store)',
  AUTH_SCHEME: 'the service expects other wire words: try --compat virgil (or --compat service)',
  TOKEN_MALFORMED: 'mint a fresh token with `cards jwt --identity ID`',
  TOKEN_SIGNATURE:
    'the service does not trust the key the token was signed with: check --token/--app-key, or --db for a local `cards serve`',
  TOKEN_EXPIRED:
    'mint a fresh token with `cards jwt --identity ID`, or pass --app-key to mint one per request',
  TOKEN_NOT_YET_VALID: "check this machine's clock",
  TOKEN_ALGORITHM: 'mint a token with `cards jwt` (EdDSA) or --app-config (VEDS512)',
  TOKEN_CLAIMS: 'mint a token with `cards jwt --identity ID`',
  TOKEN_NOT_LOCAL:
    'a server started with --accept-any-token answers only requests from this machine: reach it at 127.0.0.1 or localhost',
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

/** Where the service's address is set, by where the one in use came from. */
const URL_SETTING: Record<Source, string> = {
  flag: 'check --url',
  env: 'point CARDS_URL at yours',
  config: "point the profile's url at yours (`cards config set url URL`)",
  default: 'point --url (CARDS_URL) at yours',
};

/** The setting that holds the service's address, by where the one in use came from. */
const URL_NAME: Record<Source, string> = {
  flag: '--url',
  env: 'CARDS_URL',
  config: "the profile's url",
  default: '--url (CARDS_URL)',
};

/**
 * Why a service could not be reached, when the cause says more than "is it running?": a host
 * name nothing resolves, or TLS spoken to a port that answers plain HTTP (`https://` for a local
 * `cards serve`, which speaks HTTP).
 */
function unreachableHint(err: CardsError, urlSource: Source): string | undefined {
  // A command's own words around the client's error (seed's "card NAME: …"): the client's.
  if (err.cause instanceof CardsError && err.cause.code === 'UNREACHABLE')
    return unreachableHint(err.cause, urlSource);
  const cause = (err.cause as NodeJS.ErrnoException | undefined)?.code;
  if (err.cause === undefined && /failed with HTTP 5\d\d/.test(err.message))
    return 'the service is running but failed to answer: try again later (on a local `cards serve`, `cards requests` shows it, and `cards faults list` any failure made on purpose)';
  if (cause === 'ENOTFOUND' || cause === 'EAI_AGAIN')
    return `the host name in ${URL_NAME[urlSource]} is not known here: check its spelling, or use an IP address`;
  if (cause === 'EPROTO' || cause === 'ERR_SSL_WRONG_VERSION_NUMBER')
    return `that port does not speak TLS: a local \`cards serve\` speaks plain HTTP, so use http:// in ${URL_NAME[urlSource]}`;
  return undefined;
}

/**
 * The error with a next step: the command's own for its code, else the general one. `urlSource`
 * is where the command's --url came from, which an unreachable service's hint names.
 */
function withHint(err: unknown, own: string | undefined, urlSource?: Source): unknown {
  if (!(err instanceof CardsError) || err.hint) return err;
  const unreachable = (): string =>
    unreachableHint(err, urlSource ?? 'default') ??
    `is the service running? Start a local one with \`cards serve\`, or ${URL_SETTING[urlSource ?? 'default']}`;
  const hint = own ?? (err.code === 'UNREACHABLE' ? unreachable() : HINTS[err.code]);
  if (!hint) return err;
  return reworded(err, err.message, { hint, cause: err.cause, partial: err.partial });
}

/**
 * An explicitly empty flag (`--identity ""`) is a mistake, often an unset shell variable: it
 * must not fall back silently to the environment or the profile.
 */
function refuseEmptyFlags(options: GlobalFlags & Record<string, unknown>): void {
  for (const [name, source] of Object.entries(options.sources ?? {})) {
    const value = options[name];
    if (source !== 'flag' || (value !== '' && !(Array.isArray(value) && value.includes(''))))
      continue;
    const flag = `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    throw new CardsError('USAGE', `${flag} is empty.`, {
      hint: `give ${flag} a value, or leave the flag out to use the environment or the profile`,
    });
  }
}
