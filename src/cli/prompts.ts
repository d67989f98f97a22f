/**
 * Every question the CLI asks, through one door (house habit 7). inquirer is imported only
 * when a question is really put to a person; nothing is asked when stdin is not a terminal,
 * and every question names the flag that answers it instead.
 */
import { CardsError } from '../core/errors.js';
import type { CommandContext } from './context.js';

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

/** Whether a question may be asked at all (injected answers, or stdin on a terminal). */
export const canPrompt = (ctx: CommandContext): boolean =>
  ctx.prompt !== undefined || ctx.stdin.isTTY === true;

/**
 * Asks `questions`; `flagHint` tells a script which flags answer them ("pass --yes").
 * Prompts are drawn on stderr so that stdout keeps only the command's output.
 */
export async function ask(
  ctx: CommandContext,
  questions: readonly Question[],
  flagHint: string,
): Promise<Answers> {
  if (ctx.prompt) return ctx.prompt(questions);
  if (ctx.stdin.isTTY !== true) {
    throw new CardsError('USAGE', 'This needs an answer, and stdin is not a terminal.', {
      hint: flagHint,
    });
  }
  const { createPromptModule } = await import('inquirer');
  const prompt = createPromptModule({ output: process.stderr });
  const list = questions.map((q) => ({
    type: q.type,
    name: q.name,
    message: q.message,
    ...(q.default === undefined ? {} : { default: q.default }),
    ...(q.choices === undefined ? {} : { choices: [...q.choices] }),
  }));
  try {
    return (await prompt(list as never)) as Answers;
  } catch (err) {
    // Ctrl-C (or a closed terminal) at a question: the person stopped the command; exit 130
    // with one quiet line rather than a stack trace (report-error.ts).
    if (err instanceof Error && err.name === 'ExitPromptError') throw new CardsError('CANCELLED');
    throw err;
  }
}

/** A yes/no question; `flagHint` names the flag that says yes without asking. */
export async function confirm(
  ctx: CommandContext,
  message: string,
  flagHint: string,
): Promise<boolean> {
  const answers = await ask(
    ctx,
    [{ type: 'confirm', name: 'ok', message, default: false }],
    flagHint,
  );
  return answers.ok === true;
}
