/**
 * A log's origins and what its key signed last. A reset of the registry (or `--new-log`) begins a
 * new log, origin `<base>/reset-N`, rather than rewinding the old one; and the last checkpoint
 * the log key signed of each log is kept apart from the log (tile-store.ts `lastSigned`), so that a log found
 * missing or behind it is refused instead of signed over: a second tree of a size already signed
 * under one origin is a fork (C2SP tlog-checkpoint: a log's checkpoints are of one append-only
 * tree; tlog-witness refuses any that is not consistent with one it saw). Pure.
 */
import { encodeBase64 } from '../core/encoding.js';
import { CardsError } from '../core/errors.js';
import type { PrivateKey } from '../crypto/keys.js';
import { openCheckpoint, parseCheckpoint } from './checkpoint.js';
import { equalHashes } from './hash.js';
import { ed25519Verifier } from './note-keys.js';
import { parseNote } from './note.js';

/** The origin of the log begun after `epoch` resets of the registry (0: the first log). */
export const epochOrigin = (base: string, epoch: number): string =>
  epoch === 0 ? base : `${base}/reset-${epoch}`;

/** The epoch of `origin` as a log of `base`, or undefined when it is not one. */
export function epochOf(base: string, origin: string): number | undefined {
  if (origin === base) return 0;
  const match = /^\/reset-([1-9][0-9]{0,8})$/.exec(origin.slice(base.length));
  return origin.startsWith(base) && match ? Number(match[1]) : undefined;
}

/** A `/reset-N` suffix: the epoch of a log a reset began (a base origin has none: log-setup.ts). */
const RESET_SUFFIX = /\/reset-([1-9][0-9]{0,8})$/;

/** Whether `origin` ends as the log of a reset does (refused as a base origin). */
export const looksLikeResetOrigin = (origin: string): boolean => RESET_SUFFIX.test(origin);

/**
 * Where a log's checkpoint and tiles live under a server's `/log/`: the first log at `/log/`,
 * the one the Nth reset began at `/log/reset-N/`. Each log has its own prefix (C2SP tlog-tiles
 * names tiles by path under a log's prefix, and a tile's path is immutable), so no URL ever
 * names the tiles of two logs.
 */
export const epochPrefix = (epoch: number): string => (epoch === 0 ? '' : `reset-${epoch}/`);

/** The prefix (epochPrefix) of the log named by `origin`, from its `/reset-N` suffix. */
export function prefixOfOrigin(origin: string): string {
  const match = RESET_SUFFIX.exec(origin);
  return match ? epochPrefix(Number(match[1])) : '';
}

/** A path under `/log/` split into the log it names (its epoch) and the path in that log. */
export function splitLogPath(path: string): { epoch: number; rest: string } {
  const match = /^reset-([1-9][0-9]{0,8})\//.exec(path);
  return match
    ? { epoch: Number(match[1]), rest: path.slice(match[0].length) }
    : { epoch: 0, rest: path };
}

/** One tree of a log of `base`: which log (its epoch), its size and root. */
export interface TreePoint {
  readonly epoch: number;
  readonly size: number;
  readonly root: Uint8Array;
}

/**
 * The signed checkpoints a kept record holds: the last one the key signed of each log it kept
 * (C2SP signed-note: a note is its text, a blank line and its signature lines, so notes written
 * one after the other split where a line after the signatures is not one).
 */
function recordNotes(record: string | undefined): string[] {
  const notes: string[] = [];
  let note = '';
  let signatures = false;
  for (const line of (record ?? '').split(/(?<=\n)/)) {
    if (signatures && !line.startsWith('\u2014 ')) {
      notes.push(note);
      note = '';
      signatures = false;
    }
    note += line;
    if (line === '\n') signatures = true;
  }
  if (note !== '') notes.push(note);
  return notes;
}

/** The point one kept note names, when it is a checkpoint of a log of `base` signed by `key`. */
function notePoint(note: string, base: string, key: PrivateKey): TreePoint | undefined {
  try {
    const origin = note.slice(0, note.indexOf('\n'));
    const epoch = epochOf(base, origin);
    if (epoch === undefined) return undefined;
    const { checkpoint } = openCheckpoint(
      note,
      [ed25519Verifier(origin, key.publicKey.raw)],
      origin,
    );
    return { epoch, size: checkpoint.size, root: checkpoint.root };
  } catch {
    return undefined;
  }
}

/**
 * The point a kept record names for the log of `base` signed by `key`: undefined when it holds
 * none (nothing kept, or only checkpoints of other origins or keys: this key never signed this
 * log, so cannot fork it).
 */
export function signedPoint(
  record: string | undefined,
  base: string,
  key: PrivateKey,
): TreePoint | undefined {
  let point: TreePoint | undefined;
  for (const note of recordNotes(record)) {
    const found = notePoint(note, base, key);
    if (found && (point === undefined || isAtOrAfter(found, point))) point = found;
  }
  return point;
}

/**
 * The record to keep once `key` has signed `signed`, a checkpoint of the log of `base`: it takes
 * the place of that log's last one, and the checkpoints of every other log stay (another
 * `--log-origin`, another key): either may sign again one day (an operator going back to an
 * origin or a key), and must find what it signed. What is not a signed checkpoint goes.
 */
export function keptRecord(
  record: string | undefined,
  signed: string,
  base: string,
  key: PrivateKey,
): string {
  const others = recordNotes(record).filter((note) => {
    try {
      parseCheckpoint(parseNote(note).text);
    } catch {
      return false;
    }
    return notePoint(note, base, key) === undefined;
  });
  return [...others, signed].join('');
}

/** Whether `found` is `signed` or a tree after it (a later log, or the same log grown). */
export function isAtOrAfter(found: TreePoint, signed: TreePoint): boolean {
  if (found.epoch !== signed.epoch) return found.epoch > signed.epoch;
  if (found.size !== signed.size) return found.size > signed.size;
  return equalHashes(found.root, signed.root);
}

export interface BehindOptions {
  readonly base: string;
  /** What storage holds: the tree found, or undefined when there is no log at all. */
  readonly found: TreePoint | undefined;
  readonly signed: TreePoint;
  /** The log's storage and where the record is kept, for the message. */
  readonly log: string;
  readonly record: string;
}

/** LOG_ROLLED_BACK: the stored log is missing or behind what its key signed. */
export function logBehind(options: BehindOptions): CardsError {
  const { base, found, signed } = options;
  const at = (p: TreePoint): string =>
    `size ${p.size} of ${epochOrigin(base, p.epoch)} (root ${encodeBase64(p.root)})`;
  const what =
    found === undefined
      ? 'holds no log'
      : found.epoch === signed.epoch && found.size === signed.size
        ? `holds a different tree, ${at(found)}`
        : `is behind, at ${at(found)}`;
  const next = epochOrigin(base, Math.max(signed.epoch, found?.epoch ?? 0) + 1);
  return new CardsError(
    'LOG_ROLLED_BACK',
    `The transparency log in ${options.log} ${what}, but its key signed ${at(signed)} (kept in ${options.record}): signing on would fork the log; refusing to start.`,
    {
      hint: `restore the log (and the store) from the latest backup, or start once with \`cards serve --new-log\` to begin a new log (origin ${next}): clients that trusted the old one will see a log they have no key for, not a fork`,
    },
  );
}
