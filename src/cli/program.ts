/**
 * The loop that registers every command, each declared once: the global flags, then each
 * command module's declaration, in the order of COMMANDS. A new command is one module under
 * commands/ and one line in COMMANDS. Declarations load nothing heavy and each command's module
 * loads only when it runs, so `cards --help` and `--version` stay fast.
 */
import { Command, Option } from 'commander';
import { DEFAULT_URL } from '../server/defaults.js';
import type { AnyDeclaration } from './command.js';
import admin from './commands/admin/index.js';
import build from './commands/build/index.js';
import completion from './commands/completion/index.js';
import config from './commands/config/index.js';
import create from './commands/create/index.js';
import faults from './commands/faults/index.js';
import get from './commands/get/index.js';
import init from './commands/init/index.js';
import inspect from './commands/inspect/index.js';
import jwt from './commands/jwt/index.js';
import key from './commands/key/index.js';
import keygen from './commands/keygen/index.js';
import log from './commands/log/index.js';
import monitor from './commands/monitor/index.js';
import requests from './commands/requests/index.js';
import revoke from './commands/revoke/index.js';
import rotate from './commands/rotate/index.js';
import search from './commands/search/index.js';
import seed from './commands/seed/index.js';
import serve from './commands/serve/index.js';
import snapshot from './commands/snapshot/index.js';
import status from './commands/status/index.js';
import transfer from './commands/transfer/index.js';
import unregister from './commands/unregister/index.js';
import verify from './commands/verify/index.js';
import witness from './commands/witness/index.js';
import type { CommandContext } from './context.js';
import { VERSION } from './version.js';

/** Every command, in the order `cards --help` lists them. */
const COMMANDS: readonly (AnyDeclaration | readonly AnyDeclaration[])[] = [
  keygen,
  key,
  jwt,
  build,
  create,
  get,
  search,
  revoke,
  rotate,
  unregister,
  inspect,
  seed,
  verify,
  monitor,
  log,
  init,
  config,
  completion,
  admin,
  status,
  requests,
  faults,
  snapshot,
  transfer,
  serve,
  witness,
];

/** What an action does with its declaration and its parsed command (run.ts: the funnel). */
type Perform = (declaration: AnyDeclaration, command: Command) => Promise<void>;

export function buildProgram(ctx: CommandContext, perform: Perform): Command {
  const program = new Command('cards')
    .description('Create, inspect, verify and serve public-key Cards (Cards Service v5).')
    .version(VERSION, '-V, --version')
    // The global flags: before or after the command (`cards --json get ID`, `cards get ID --json`).
    .addOption(
      new Option('--json', 'print exactly one JSON document on stdout: the result, or the error'),
    )
    .addOption(
      new Option(
        '--no-color',
        'no colour (also off under NO_COLOR, TERM=dumb, or without a terminal)',
      ),
    )
    .addOption(
      new Option('--profile <name>', "the config profile (default: the config file's default)").env(
        'CARDS_PROFILE',
      ),
    )
    .addOption(
      new Option('--debug', 'print each HTTP request and response on stderr, token redacted').env(
        'CARDS_DEBUG',
      ),
    )
    .exitOverride()
    // Errors are printed by the funnel (run.ts) in the one format of every error.
    .configureOutput({
      writeOut: (text) => void ctx.stdout.write(text),
      writeErr: (text) => void ctx.stderr.write(text),
      outputError: () => undefined,
    })
    .configureHelp({ showGlobalOptions: true })
    .addHelpText(
      'after',
      `
Examples:
  $ cards serve                       # a local Cards Service on ${DEFAULT_URL}
  $ cards keygen --identity alice     # a key pair into the keystore (~/.cards/keys)
  $ cards create --identity alice     # build, sign and publish alice's card
  $ cards search alice                # alice's cards, newest first
  $ cards inspect card.json           # decode and verify offline
  $ cards --version

Settings: flags > environment (CARDS_URL, CARDS_TOKEN, CARDS_APP_KEY, CARDS_DB, …) > config
profile (\`cards init\`) > defaults. Exit statuses: 0 ok, 1 internal, 2 usage, 3 not found,
4 refused, 5 verification failed, 6 unreachable, 7 unauthorized, 8 log forked or rewound,
9 PostgreSQL store cannot be opened, 130 cancelled (Ctrl-C).`,
    );
  for (const declaration of COMMANDS.flat()) register(program, declaration, perform);
  return program;
}

/** The command of `words` below `parent`, made when it is not there yet. */
function commandAt(parent: Command, words: readonly string[]): Command {
  let at = parent;
  for (const word of words) at = at.commands.find((c) => c.name() === word) ?? at.command(word);
  return at;
}

function register(program: Command, declaration: AnyDeclaration, perform: Perform): void {
  const command = commandAt(program, declaration.name.split(' ')).description(declaration.summary);
  for (const argument of declaration.args ?? []) command.addArgument(argument);
  for (const option of (declaration.flags ?? []).flat()) command.addOption(option);
  const examples = declaration.examples?.map((example) => `  $ ${example}`).join('\n');
  const help = [declaration.help, examples && `Examples:\n${examples}`].filter(Boolean);
  if (help.length > 0) command.addHelpText('after', `\n${help.join('\n\n')}`);
  if (declaration.run)
    command.action((...params: unknown[]) => perform(declaration, params.at(-1) as Command));
}
