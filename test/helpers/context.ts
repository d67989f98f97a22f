/**
 * A command context for tests: defaults filled, nothing read from the process (the executable
 * builds its own with `processContext`, src/cli/context.ts).
 */
import {
  cardsHome,
  type CommandContext,
  type InStream,
  type OutStream,
} from '../../src/cli/context.js';

export function makeContext(
  overrides: Partial<CommandContext> & Pick<CommandContext, 'cwd'>,
): CommandContext {
  const env = overrides.env ?? {};
  const sink: OutStream = { write: () => true };
  const empty: InStream = {
    async *[Symbol.asyncIterator]() {
      /* no input */
    },
  };
  return {
    home: cardsHome(env, overrides.cwd),
    env,
    now: () => Date.now(),
    stdin: empty,
    stdout: sink,
    stderr: sink,
    ...overrides,
  };
}
