/**
 * The CLI's one entry and its one error funnel (house habit 8): parse, run, and turn any
 * failure into a message on stderr and a documented exit status.
 */
import { CommanderError } from 'commander';
import { EXIT } from '../core/errors.js';
import { buildProgram } from './program.js';

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here too, with exitCode 0.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const { reportError } = await import('./report-error.js');
    // --json anywhere among the arguments: the error object goes on stdout as well.
    return reportError(err, argv.slice(2).includes('--json'));
  }
}

// `cards … | head` closes stdout early; that is not an error worth a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

process.exitCode = await main(process.argv);
