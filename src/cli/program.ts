/**
 * Every command, its flags and its examples, declared in this one file (house habit 6).
 * Actions load their module on demand so that `cards --version` and `--help` stay fast.
 */
import { Command } from 'commander';
import { VERSION } from './version.js';

export function buildProgram(): Command {
  const program = new Command('cards')
    .description('Create, inspect, verify and serve public-key Cards (Cards Service v5).')
    .version(VERSION, '-V, --version')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Examples:
  $ cards --version
  $ cards --help`,
    );
  return program;
}
