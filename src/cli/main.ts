/**
 * The executable's process: its arguments, environment and streams go to the one funnel
 * (run.ts), and its exit status comes back.
 */
import { guardStandardStreams } from '../io/standard-streams.js';
import { processContext } from './context.js';
import { runCli } from './run.js';

// A shell's `CARDS_URL= cards …` unsets the variable: an empty CARDS_* or DATABASE_URL is
// unset for every layer of the settings, commander's reading of the environment included.
for (const [name, value] of Object.entries(process.env))
  if (value === '' && (name.startsWith('CARDS_') || name === 'DATABASE_URL'))
    delete process.env[name];

guardStandardStreams();

process.exitCode = await runCli(process.argv.slice(2), processContext());
