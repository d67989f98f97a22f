/**
 * Everything the CLI prints on stdout, and the only module that colours it: each command's
 * result as text for people, or with --json as exactly one JSON document (one line of NDJSON
 * after those a `--follow` streamed), and the items a `--follow` streams as it goes. Colour
 * (chalk) is off when stdout is not a terminal, under NO_COLOR or TERM=dumb, and with
 * --no-color; FORCE_COLOR turns it on.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import type { CommandContext } from './context.js';
import { escapeTerminal, terminalJson } from '../core/terminal-text.js';
import type { Style } from './text.js';

interface OutputFlags {
  json?: boolean;
  /** A command that streams (`--follow`) prints NDJSON: its result is one more line of it. */
  follow?: boolean;
  color?: boolean;
}

export function colorLevel(ctx: CommandContext, flag: boolean | undefined): 0 | 1 {
  if (flag === false) return 0;
  const { NO_COLOR, FORCE_COLOR, TERM } = ctx.env;
  if (FORCE_COLOR !== undefined && FORCE_COLOR !== '0' && FORCE_COLOR !== 'false') return 1;
  if (NO_COLOR !== undefined && NO_COLOR !== '') return 0;
  if (TERM === 'dumb') return 0;
  return ctx.stdout.isTTY === true ? 1 : 0;
}

function makeStyle(level: 0 | 1): Style {
  const c: ChalkInstance = new Chalk({ level });
  return { ok: c.green, bad: c.red, warn: c.yellow, dim: c.dim, bold: c.bold, id: c.cyan };
}

/** Every string of a result (keys too) escaped, before any text view sees it. */
function forTerminal(value: unknown): unknown {
  if (typeof value === 'string') return escapeTerminal(value);
  if (Array.isArray(value)) return value.map(forTerminal);
  if (
    value !== null &&
    typeof value === 'object' &&
    Object.getPrototypeOf(value) === Object.prototype
  )
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [escapeTerminal(k), forTerminal(v)]),
    );
  return value;
}

export function emit<T>(
  ctx: CommandContext,
  view: ((data: T, style: Style) => string) | undefined,
  data: T,
  flags: OutputFlags,
): void {
  if (flags.json || view === undefined) {
    ctx.stdout.write(`${terminalJson(data, flags.follow ? undefined : 2)}\n`);
    return;
  }
  // The views get the data escaped, so none of them can forget to (--json above escapes as JSON).
  const text = view(forTerminal(data) as T, makeStyle(colorLevel(ctx, flags.color)));
  if (text !== '') ctx.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * One item of a stream a command prints as it goes (`--follow`): a line of NDJSON under --json,
 * else its line of text, escaped as every view's data is.
 */
export function emitItem<T>(
  ctx: CommandContext,
  line: (item: T) => string,
  item: T,
  flags: Pick<OutputFlags, 'json'>,
): void {
  ctx.stdout.write(`${flags.json ? terminalJson(item) : escapeTerminal(line(item))}\n`);
}
