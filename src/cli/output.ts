/**
 * Everything the CLI prints on stdout, and the only module that colours it: each command's
 * result as text for people, or with --json as exactly one JSON document. Colour (chalk) is
 * off when stdout is not a terminal, under NO_COLOR or TERM=dumb, and with --no-color;
 * FORCE_COLOR turns it on.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import type { CommandContext } from './context.js';
import { TEXT, type Style, type ViewName } from './views.js';

export interface OutputFlags {
  json?: boolean;
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

export function makeStyle(level: 0 | 1): Style {
  const c: ChalkInstance = new Chalk({ level });
  return { ok: c.green, bad: c.red, warn: c.yellow, dim: c.dim, bold: c.bold, id: c.cyan };
}

/**
 * Characters a terminal acts on rather than shows: C0 (newlines too: a view prints its own line
 * breaks, never the data's), DEL, C1 (U+009B is a CSI on its own) and the bidi controls that
 * reorder what follows (U+061C, U+200E/F, U+202A–202E, U+2066–2069). Card data is anyone's.
 */
// eslint-disable-next-line no-control-regex
const TERMINAL_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every terminal control written out as \n, \r, \t, \xHH or \uHHHH (issue 11 item 8). */
export function escapeTerminal(text: string): string {
  return text.replace(TERMINAL_UNSAFE, (c) => {
    const named = NAMED[c];
    if (named) return named;
    const n = c.charCodeAt(0);
    return n < 0x100
      ? `\\x${n.toString(16).padStart(2, '0')}`
      : `\\u${n.toString(16).padStart(4, '0')}`;
  });
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

export function emit(ctx: CommandContext, view: ViewName, data: unknown, flags: OutputFlags): void {
  if (flags.json) {
    ctx.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
    return;
  }
  // The views get the data escaped, so none of them can forget to (--json above stays exact).
  const text = (TEXT[view] as (d: unknown, s: Style) => string)(
    forTerminal(data),
    makeStyle(colorLevel(ctx, flags.color)),
  );
  if (text !== '') ctx.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}
