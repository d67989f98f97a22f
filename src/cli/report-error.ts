/** Renders a failure for a person: code, message and next step on stderr; returns the exit status. */
import { CardsError } from '../core/errors.js';
import { escapeTerminal } from '../core/terminal-text.js';
import { EXIT, EXIT_STATUS, type ExitStatus } from './exit-status.js';

/**
 * Under --json, one error object on stdout too (as gh does), so a script reads one JSON
 * document whether the command worked or not: {"error":{"name","code","message","hint"}},
 * after what the command had done when it failed (`CardsError.partial`: seed's summary).
 */
function printJsonError(
  name: string,
  code: number | null,
  message: string,
  hint?: string,
  partial?: Readonly<Record<string, unknown>>,
): void {
  const error = { name, code, message, hint: hint ?? null };
  process.stdout.write(`${JSON.stringify({ ...partial, error }, null, 2)}\n`);
}

export function reportError(err: unknown, json = false): ExitStatus {
  if (err instanceof CardsError) {
    const exit = EXIT_STATUS[err.code];
    if (err.code === 'CANCELLED' || err.code === 'DECLINED') {
      // Not a failure: the person said stop. One quiet line, no code, no hint.
      process.stderr.write(`${err.message}\n`);
      return exit;
    }
    if (json) printJsonError(err.code, err.number, err.message, err.hint, err.partial);
    // A message may quote card data (an identity): escaped like every text view.
    process.stderr.write(`error ${err.code} (${err.number}): ${escapeTerminal(err.message)}\n`);
    if (err.hint) process.stderr.write(`  ${escapeTerminal(err.hint)}\n`);
    return exit;
  }
  const sys = err as NodeJS.ErrnoException | undefined;
  if (sys && typeof sys.code === 'string' && typeof sys.syscall === 'string') {
    // A file-system refusal (permissions, a file where a folder should be): not a bug.
    if (json) printJsonError(sys.code, null, sys.message);
    process.stderr.write(`error ${sys.code}: ${escapeTerminal(sys.message)}\n`);
    process.stderr.write('  check the path and its permissions (CARDS_HOME, --db, --out)\n');
    return EXIT.error;
  }
  if (json) printJsonError('INTERNAL', null, err instanceof Error ? err.message : String(err));
  process.stderr.write(
    'internal error: this is a bug in cards; please report it with the output below.\n',
  );
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return EXIT.error;
}
