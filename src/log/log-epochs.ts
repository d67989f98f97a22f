/**
 * A log's origins and what its key signed last. A reset of the registry (or `--new-log`) begins a
 * new log, origin `<base>/reset-N`, rather than rewinding the old one; and the last checkpoint
 * the log key signed is kept apart from the log (tile-store.ts `lastSigned`), so that a log found
 * missing or behind it is refused instead of signed over: a second tree of a size already signed
 * under one origin is a fork (C2SP tlog-checkpoint: a log's checkpoints are of one append-only
 * tree; tlog-witness refuses any that is not consistent with one it saw). Pure.
 */
import { encodeBase64 } from '../core/encoding.js';
import { CardsError } from '../core/errors.js';
import type { PrivateKey } from '../crypto/keys.js';
import { openCheckpoint } from './checkpoint.js';
import { equalHashes } from './hash.js';
import { ed25519Verifier } from './note-keys.js';

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
 * The point a kept record (a signed checkpoint) names, when it is a checkpoint of a log of `base`
 * signed by `key`; undefined otherwise (none kept, or kept for another key or origin: this key
 * never signed it, so cannot fork it).
 */
export function signedPoint(
  record: string | undefined,
  base: string,
  key: PrivateKey,
): TreePoint | undefined {
  if (record === undefined) return undefined;
  try {
    const origin = record.slice(0, record.indexOf('\n'));
    const epoch = epochOf(base, origin);
    if (epoch === undefined) return undefined;
    const { checkpoint } = openCheckpoint(
      record,
      [ed25519Verifier(origin, key.publicKey.raw)],
      origin,
    );
    return { epoch, size: checkpoint.size, root: checkpoint.root };
  } catch {
    return undefined;
  }
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
