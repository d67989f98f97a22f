/**
 * What a command module declares: its words, summary, arguments, flags, help with examples, its
 * result as text, the next steps for its errors, and its run. program.ts registers each
 * declaration; run.ts runs it through the one funnel. A declaration loads nothing heavy: `run`
 * imports the command's module when it runs.
 */
import type { Argument, Command, Option } from 'commander';
import type { ErrorCode } from '../core/errors.js';
import type { CommandContext } from './context.js';
import type { Style } from './text.js';
import type { Sources } from './value-sources.js';

/** The global flags every command takes (program.ts), besides its own. */
export interface GlobalFlags {
  json?: boolean;
  /** commander's `--no-color`: false when given. */
  color?: boolean;
  profile?: string;
  debug?: boolean;
  sources?: Sources;
}

export interface CommandDeclaration<O = never, T = unknown> {
  /** The words after `cards`: "keygen", "key public". */
  readonly name: string;
  readonly summary: string;
  readonly args?: readonly Argument[];
  /** Its flags: shared groups (flags.ts) and its own. */
  readonly flags?: readonly (Option | readonly Option[])[];
  /** What to know beyond the flags, printed after them in --help. */
  readonly help?: string;
  readonly examples?: readonly string[];
  /** Runs the command: its result goes to `text` (or as JSON); undefined: it printed its own. */
  readonly run?: (
    ctx: CommandContext,
    options: O & GlobalFlags,
    args: string[],
    command: Command,
  ) => Promise<T | undefined>;
  /** The result as text for people; under --json the result is printed as it is. */
  readonly text?: (result: T, style: Style) => string;
  /** Next steps for its errors, where this command knows better than the general ones. */
  readonly hints?: Partial<Record<ErrorCode, string>>;
  /** The next step for a file-system refusal (errno), naming the flags of the paths it uses. */
  readonly fileHint?: string;
  /** A result that is a failure (a check that did not pass): its exit status and summary. */
  readonly verdict?: (result: T) => { exit: number; summary: string } | undefined;
}

/** A declaration, its option and result types checked against its run and text. */
export const declare = <O, T>(declaration: CommandDeclaration<O, T>): CommandDeclaration<O, T> =>
  declaration;

/** A declaration whatever its types, as the command list holds them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDeclaration = CommandDeclaration<any, any>;
