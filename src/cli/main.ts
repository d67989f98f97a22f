/**
 * The CLI's one entry and its one error funnel (house habit 8): parse, run, and turn any
 * failure into a message on stderr and a documented exit status.
 */
import { guardStandardStreams } from '../io/standard-streams.js';
import { CommanderError, type Command } from 'commander';
import { CardsError } from '../core/errors.js';
import { EXIT } from './exit-status.js';
import { buildProgram } from './program.js';

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    const { reportError } = await import('./report-error.js');
    // --json anywhere among the arguments: the error object goes on stdout as well.
    const json = argv.slice(2).includes('--json');
    if (err instanceof CommanderError) {
      // --help and --version end here too, with exitCode 0; `cards` alone printed its help.
      if (err.exitCode === 0 || err.code === 'commander.help')
        return err.exitCode ? EXIT.usage : EXIT.ok;
      return reportError(usageError(err, program), json);
    }
    return reportError(err, json);
  }
}

/**
 * commander's own refusals (unknown command or flag, missing argument, bad choice) in the one
 * format of every error, `error USAGE (90001): …` with a next step (issue 12.11); commander's
 * printing of them is switched off in program.ts.
 */
function usageError(err: CommanderError, program: Command): CardsError {
  const [first = '', ...rest] = err.message.replace(/^error: /, '').split('\n');
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

guardStandardStreams();

process.exitCode = await main(process.argv);
