/**
 * Renders a failure for a person: `error NAME (code): message` and a next step on stderr, and
 * under --json one error document on stdout too; returns the exit status. commander's own
 * refusals (unknown command or flag, missing argument, bad value) become the same USAGE error.
 */
import type { Command, CommanderError } from 'commander';
import { CardsError } from '../core/errors.js';
import { escapeTerminal, terminalJson } from '../core/terminal-text.js';
import type { CommandContext } from './context.js';
import { EXIT, EXIT_STATUS, type ExitStatus } from './exit-status.js';
import { invalidValue } from './flags.js';

/**
 * Under --json, one error object on stdout too, so a script reads one JSON document whether the
 * command worked or not: {"error":{"name","code","message","hint"}}, after what the command had
 * done when it failed (`CardsError.partial`: seed's summary). After a `--follow` stream (NDJSON)
 * it is one more line of it.
 */
function printJsonError(
  ctx: CommandContext,
  follow: boolean,
  said: { name: string; code: number | null; message: string; hint?: string | undefined },
  partial?: Readonly<Record<string, unknown>>,
): void {
  const error = {
    name: said.name,
    code: said.code,
    message: said.message,
    hint: said.hint ?? null,
  };
  ctx.stdout.write(`${terminalJson({ ...partial, error }, follow ? undefined : 2)}\n`);
}

/** A file-system refusal (node's errno error), with the next step its command names. */
export interface FileSystemError extends NodeJS.ErrnoException {
  code: string;
  syscall: string;
  hint?: string;
}

export const isFileSystemError = (err: unknown): err is FileSystemError =>
  err instanceof Error &&
  typeof (err as NodeJS.ErrnoException).code === 'string' &&
  typeof (err as NodeJS.ErrnoException).syscall === 'string';

export function reportError(
  ctx: CommandContext,
  err: unknown,
  json = false,
  follow = false,
): ExitStatus {
  if (err instanceof CardsError) {
    const exit = EXIT_STATUS[err.code];
    const said = { name: err.code, code: err.number, message: err.message, hint: err.hint };
    if (json) printJsonError(ctx, follow, said, err.partial);
    if (err.code === 'CANCELLED' || err.code === 'DECLINED') {
      // Not a failure: the person said stop. One quiet line, no code, no hint; a script under
      // --json still reads its one document, with what was done (seed's summary).
      ctx.stderr.write(`${err.message}\n`);
      return exit;
    }
    // A message may quote card data (an identity): escaped like every text view.
    ctx.stderr.write(`error ${err.code} (${err.number}): ${escapeTerminal(err.message)}\n`);
    if (err.hint) ctx.stderr.write(`  ${escapeTerminal(err.hint)}\n`);
    return exit;
  }
  if (isFileSystemError(err)) {
    // A file-system refusal (permissions, a file where a folder should be): not a bug. Node's
    // message starts with the code the line names already ("ENOTDIR: not a directory, …").
    const message = err.message.replace(`${err.code}: `, '');
    const hint = err.hint ?? 'check the path and its permissions (CARDS_HOME, --db, --out)';
    if (json) printJsonError(ctx, follow, { name: err.code, code: null, message, hint });
    ctx.stderr.write(`error ${err.code}: ${escapeTerminal(message)}\n`);
    ctx.stderr.write(`  ${escapeTerminal(hint)}\n`);
    return EXIT.error;
  }
  if (json) {
    const message = err instanceof Error ? err.message : String(err);
    printJsonError(ctx, follow, { name: 'INTERNAL', code: null, message });
  }
  ctx.stderr.write(
    'internal error: this is a bug in cards; please report it with the output below.\n',
  );
  ctx.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return EXIT.error;
}

/** `cards` or a command group (`cards log`) run without one of its commands. */
export function missingCommand(program: Command, args: readonly string[]): CardsError {
  const group = program.commands.find((c) => c.commands.length > 0 && args.includes(c.name()));
  const where = group ? `cards ${group.name()}` : 'cards';
  const names = (group?.commands ?? []).map((c) => c.name()).filter((name) => name !== 'help');
  return new CardsError(
    'USAGE',
    `${where} needs a command${names.length > 0 ? `: ${names.join(', ')}` : ''}.`,
    { hint: `\`${where} --help\` lists ${group ? 'its commands' : 'every command'}` },
  );
}

/** commander's "option '--port <port>' argument 'x' is invalid. …" (or "value 'x' from env 'V'"). */
const INVALID_OPTION =
  /^option '(--[\w-]+)[^']*' (?:argument|value) '(.*?)'(?: from env '(\w+)')? is invalid\. (.*)$/s;

/**
 * commander's refusal as `error USAGE (90001): …` with a next step; commander's own printing
 * of it is switched off in program.ts.
 */
export function fromCommander(err: CommanderError, program: Command): CardsError {
  const [first = '', ...rest] = err.message.replace(/^error: /, '').split('\n');
  const bad = err.code === 'commander.invalidArgument' ? INVALID_OPTION.exec(first) : null;
  if (bad) return invalidValue(bad[3] ?? (bad[1] as string), bad[2] as string, bad[4] as string);
  let suggestion = /^\(Did you mean (.+)\?\)$/.exec(rest.join(' ').trim())?.[1];
  // `cards list` means `cards key list`: look one level down for a command of that name.
  const unknown = err.code === 'commander.unknownCommand' ? /'(.+)'/.exec(first)?.[1] : undefined;
  const nested = program.commands.find((c) => c.commands.some((sub) => sub.name() === unknown));
  if (suggestion === undefined && nested) suggestion = `\`cards ${nested.name()} ${unknown}\``;
  const help = '`cards --help` lists every command, `cards COMMAND --help` its flags';
  return new CardsError('USAGE', first, {
    hint: suggestion ? `did you mean ${suggestion}? (${help})` : help,
  });
}
