/**
 * Every question the CLI asks, through one door. inquirer is imported only when a question is
 * really put to a person; nothing is asked when stdin is not a terminal, and every question
 * names the flag that answers it instead.
 */
import { CardsError } from '../core/errors.js';
import type { Answers, CommandContext, Question } from './context.js';

export type { PromptFn, Question } from './context.js';

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

/** Goes ahead on --yes; otherwise asks, and stops (USAGE, nothing changed) on a no. */
export async function confirmOrYes(
  ctx: CommandContext,
  yes: boolean | undefined,
  question: string,
): Promise<void> {
  if (yes === true) return;
  if (!(await confirm(ctx, question, 'pass --yes to go ahead without asking')))
    throw new CardsError('DECLINED');
}
