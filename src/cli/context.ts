/**
 * What every command receives instead of reaching for `process`, so a test runs it in-process:
 * the working folder, the keystore home, the environment, the clock, the streams and, in tests,
 * injected prompt answers. Only `processContext` reads the real process.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export interface OutStream {
  write(chunk: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface InStream extends AsyncIterable<Buffer | string> {
  readonly isTTY?: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

/** A question put through prompts.ts (defined here, where the injected PromptFn needs it). */
export interface Question {
  readonly type: 'input' | 'confirm' | 'select';
  readonly name: string;
  readonly message: string;
  readonly default?: string | boolean;
  /** Plain values, or a value with words that explain it. */
  readonly choices?: readonly (string | { readonly name: string; readonly value: string })[];
}

export type Answers = Record<string, string | boolean>;
export type PromptFn = (questions: readonly Question[]) => Promise<Answers>;

export interface CommandContext {
  readonly cwd: string;
  /** The keystore and config folder: CARDS_HOME, default ~/.cards. */
  readonly home: string;
  readonly env: Env;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  readonly stdin: InStream;
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  /** Answers prompts instead of a terminal (tests); when absent, inquirer on a TTY. */
  readonly prompt?: PromptFn;
}

/** CARDS_HOME, else `.cards` in the context's HOME (the user's home folder when unset). */
export function cardsHome(env: Env, cwd: string): string {
  const home = env.CARDS_HOME;
  return home ? resolve(cwd, home) : join(env.HOME || homedir(), '.cards');
}

export function processContext(): CommandContext {
  const cwd = process.cwd();
  return {
    cwd,
    home: cardsHome(process.env, cwd),
    env: process.env,
    now: () => Date.now(),
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
  };
}
