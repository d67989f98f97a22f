/**
 * The strict JSON reader of content snapshots: RFC 8259 text, read one way only, so that no
 * two parsers (ours, the deployed service's, a client's) can read one card two ways.
 *
 * Beyond RFC 8259's grammar it refuses what the RFC leaves to each parser:
 * - a name twice in one object (RFC 8259 section 4: "the names within an object SHOULD be
 *   unique"; I-JSON, RFC 7493 section 2.3, makes it MUST): parsers differ on which one wins;
 * - a string that is not well-formed Unicode (an escaped lone surrogate, RFC 8259 section 8.2;
 *   I-JSON section 2.1) or that holds U+0000: neither has one form every store and encoder
 *   agrees on (UTF-8 has no lone surrogate; PostgreSQL text holds no U+0000).
 * Anything before or after the value but JSON whitespace is refused: a byte-order mark too
 * (the text comes from a strict UTF-8 decode that keeps one as U+FEFF).
 * It also hands back the literal text of each number member of the top-level object, so a
 * caller can ask for an integer written as digits alone (`created_at`).
 * Pure: never throws anything but StrictJsonError; objects are nested at most MAX_DEPTH deep.
 */

import { isPortableText } from './encoding.js';

/** Nesting depth of arrays and objects at most (a snapshot has one level). */
const MAX_DEPTH = 64;

export type StrictJsonProblem = 'syntax' | 'depth' | 'duplicate' | 'text';

export class StrictJsonError extends Error {
  override readonly name = 'StrictJsonError';
  /**
   * What is wrong: bad JSON, nesting past MAX_DEPTH, a repeated name, or a string that is not
   * well-formed text.
   */
  readonly problem: StrictJsonProblem;

  constructor(problem: StrictJsonProblem, message: string) {
    super(message);
    this.problem = problem;
  }
}

export interface StrictJson {
  readonly value: unknown;
  /** The literal of each number member of the top-level object, by name ("1700000000.0"). */
  readonly numberLiterals: ReadonlyMap<string, string>;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
/** A run of string characters that need no escape (RFC 8259 section 7: all but `"`, `\\`, U+0000-U+001F). */
// eslint-disable-next-line no-control-regex
const PLAIN = /[^"\\\u0000-\u001f]*/y;
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

export interface StrictJsonOptions {
  /**
   * Take every string as it is, where the caller's own rule judges the fields it reads (a
   * Keyknox address part is KEYKNOX_ADDRESS_INVALID when it is not text): then only the
   * grammar, the depth and a name twice are refused.
   */
  readonly anyText?: boolean;
}

export function parseStrictJson(text: string, options: StrictJsonOptions = {}): StrictJson {
  let at = 0;
  const numberLiterals = new Map<string, string>();

  const fail = (problem: StrictJsonProblem, why: string): never => {
    throw new StrictJsonError(problem, `${why} at offset ${at}`);
  };
  const space = (): void => {
    for (;;) {
      const c = text.charCodeAt(at);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      at++;
    }
  };
  const expect = (c: string): void => {
    if (text[at] !== c) fail('syntax', `expected "${c}"`);
    at++;
  };

  const string = (): string => {
    expect('"');
    let out = '';
    for (;;) {
      PLAIN.lastIndex = at;
      PLAIN.exec(text);
      out += text.slice(at, PLAIN.lastIndex);
      at = PLAIN.lastIndex;
      const c = text[at];
      if (c === '"') break;
      if (c !== '\\') fail('syntax', c === undefined ? 'unterminated string' : 'control character');
      const e = text[at + 1] ?? '';
      if (e === 'u') {
        const hex = text.slice(at + 2, at + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('syntax', 'bad \\u escape');
        out += String.fromCharCode(parseInt(hex, 16));
        at += 6;
      } else {
        const escaped = ESCAPES[e];
        if (escaped === undefined) fail('syntax', 'bad escape');
        out += escaped;
        at += 2;
      }
    }
    at++;
    if (!options.anyText && !isPortableText(out))
      fail('text', 'a string with a lone surrogate or U+0000');
    return out;
  };

  const number = (): { value: number; literal: string } => {
    NUMBER.lastIndex = at;
    const match = NUMBER.exec(text);
    if (!match) return fail('syntax', 'unexpected character');
    at = NUMBER.lastIndex;
    return { value: Number(match[0]), literal: match[0] };
  };

  const literal = (word: string, value: unknown): unknown => {
    if (!text.startsWith(word, at)) fail('syntax', 'unexpected character');
    at += word.length;
    return value;
  };

  const value = (depth: number, member?: string): unknown => {
    space();
    const c = text[at];
    if (c === '{') return object(depth + 1);
    if (c === '[') return array(depth + 1);
    if (c === '"') return string();
    if (c === 't') return literal('true', true);
    if (c === 'f') return literal('false', false);
    if (c === 'n') return literal('null', null);
    const n = number();
    if (member !== undefined) numberLiterals.set(member, n.literal);
    return n.value;
  };

  const object = (depth: number): Record<string, unknown> => {
    if (depth > MAX_DEPTH) fail('depth', `nested deeper than ${MAX_DEPTH}`);
    expect('{');
    const out: Record<string, unknown> = {};
    const names = new Set<string>();
    space();
    if (text[at] === '}') {
      at++;
      return out;
    }
    for (;;) {
      space();
      const name = string();
      if (names.has(name)) fail('duplicate', `the name ${JSON.stringify(name)} twice`);
      names.add(name);
      space();
      expect(':');
      const item = value(depth, depth === 1 ? name : undefined);
      // An own property even for "__proto__", as JSON.parse makes it.
      Object.defineProperty(out, name, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      space();
      if (text[at] === '}') break;
      expect(',');
    }
    at++;
    return out;
  };

  const array = (depth: number): unknown[] => {
    if (depth > MAX_DEPTH) fail('depth', `nested deeper than ${MAX_DEPTH}`);
    expect('[');
    const out: unknown[] = [];
    space();
    if (text[at] === ']') {
      at++;
      return out;
    }
    for (;;) {
      out.push(value(depth));
      space();
      if (text[at] === ']') break;
      expect(',');
    }
    at++;
    return out;
  };

  const result = value(0);
  space();
  if (at !== text.length) fail('syntax', 'text after the value');
  return { value: result, numberLiterals };
}
