/**
 * What the commands' text views share: the Style a view paints with (output.ts builds it from
 * chalk, or plain without colour), times, key tails, a card's lines and a state's colour.
 * Pure functions; each command's own view sits in its declaration.
 */
import type { CardView } from './card-builder.js';

/** The colours a view may use. */
export interface Style {
  readonly ok: (s: string) => string;
  readonly bad: (s: string) => string;
  readonly warn: (s: string) => string;
  readonly dim: (s: string) => string;
  readonly bold: (s: string) => string;
  readonly id: (s: string) => string;
}

/** UNIX seconds as an ISO 8601 time, or as given when they cannot be one. */
export const when = (seconds: number): string =>
  Number.isSafeInteger(seconds) && seconds > 0 && seconds < 1e11
    ? new Date(seconds * 1000).toISOString().replace('.000Z', 'Z')
    : String(seconds);

/**
 * The distinctive end of a base64 DER SPKI key: every Ed25519 key starts with the same 16
 * characters (the SPKI header), so a key is told apart by its tail (`cards key public` prints
 * the whole key to compare).
 */
export const keyTail = (key: string): string => {
  const bare = key.replace(/=+$/, '');
  return bare.length > 14 ? `…${bare.slice(-12)}` : key || '(none)';
};

export function cardLines(v: CardView, s: Style): string[] {
  const lines = [
    `  identity     ${v.identity}`,
    `  public key   ${v.publicKey || s.dim('(empty: a revoking card)')}`,
    `  created at   ${when(v.createdAt)}`,
    `  previous     ${v.previousCardId ?? s.dim('(none)')}`,
    `  signers      ${v.signers.join(', ')}`,
  ];
  for (const [signer, extra] of Object.entries(v.extras))
    lines.push(`  extra (${signer})  ${extra}`);
  return lines;
}

export const stateColour = (state: string, s: Style): string =>
  state === 'active' ? s.ok(state) : state === 'superseded' ? s.warn(state) : s.bad(state);

export const plural = (n: number, one: string, many = `${one}s`): string =>
  `${n} ${n === 1 ? one : many}`;

/** ", 2 Keyknox records" when a dump holds e3kit's backups; nothing otherwise. */
export const keyknoxNote = ({ keyknox }: { keyknox: number }): string =>
  keyknox === 0 ? '' : `, ${plural(keyknox, 'Keyknox record')}`;

/** Profile settings a terminal never shows: the admin token opens the whole registry. */
const SECRET_SETTINGS = new Set(['adminToken']);

/** A profile's settings, one a line; a secret's value left out. */
export const settingLines = (settings: object): string[] =>
  Object.entries(settings).map(
    ([k, v]) =>
      `  ${k.padEnd(11)} ${SECRET_SETTINGS.has(k) ? '(set; a secret, not shown)' : String(v)}`,
  );
