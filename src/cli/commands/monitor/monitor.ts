/**
 * `cards monitor --identity ID [--follow] [--expect-key KEY…]`: reads the log's entries from
 * where it last stopped for this identity (state in $CARDS_HOME/monitor/), checking them against
 * the signed tree (log-follow.ts), and reports every card of the identity with its log index: a
 * new key, a replacement, a revocation. With --expect-key, a card with any other key is reported
 * as unexpected and the command exits 5 (and keeps its place, so it fails again until the key
 * is expected): the check that lets Alice see a key she never published. With --follow --json
 * stdout is NDJSON: each card as it is read, and the result that ends the run, one line each.
 */
import { cardIdOf } from '../../../core/card-id.js';
import { encodeBase64 } from '../../../core/encoding.js';
import { CardsError } from '../../../core/errors.js';
import { parseSnapshot } from '../../../core/snapshot.js';
import { removeLeftTempsSync } from '../../../io/fs-durable.js';
import { ed25519Verifier } from '../../../log/note-keys.js';
import { lockFileOf, type FileLock } from '../../../server/file-lock.js';
import type { CommandContext } from '../../context.js';
import { readPublicKey } from '../../inputs.js';
import { homeDocumentPath, openJsonDocument } from '../../json-document.js';
import { emitItem } from '../../output.js';
import {
  fetchCheckpoint,
  followLog,
  isSavedEdge,
  loadSavedEdge,
  saveEdge,
  type SavedEdge,
} from '../../log-follow.js';
import { RemoteLog } from '../../log-remote.js';
import { acceptCheckpoint } from '../../log-trust.js';
import { resolveSettings, type ConnectionFlags } from '../../settings.js';

export interface MonitorOptions extends ConnectionFlags {
  follow?: boolean;
  expectKey?: string[];
  logKey?: string;
  /** --follow: ms between checkpoint fetches. */
  interval: number;
  /** --follow prints each card read as one JSON line (NDJSON) instead of text. */
  json?: boolean;
}

export interface MonitorEvent {
  index: number;
  id: string;
  kind: 'new' | 'replacement' | 'revocation';
  publicKey: string;
  previousCardId: string | null;
  createdAt: number;
  unexpected: boolean;
}

export interface MonitorResult {
  identity: string;
  origin: string;
  /** The entries read this run: from `from` up to, not including, `to` (the log's size). */
  from: number;
  to: number;
  events: MonitorEvent[];
  unexpected: number;
}

interface MonitorState {
  origin: string;
  identity: string;
  edge: SavedEdge;
}

/**
 * `line`: a card as text (--follow prints each as it is read). The state of each log origin
 * read (a reset log has a new one) is locked until the run ends (`lockState`).
 */
export async function monitor(
  ctx: CommandContext,
  options: MonitorOptions,
  line: (e: MonitorEvent) => string,
): Promise<MonitorResult> {
  const locks = new Map<string, FileLock>();
  try {
    return await watch(ctx, options, line, locks);
  } finally {
    for (const lock of locks.values()) await lock.release();
  }
}

async function watch(
  ctx: CommandContext,
  options: MonitorOptions,
  line: (e: MonitorEvent) => string,
  locks: Map<string, FileLock>,
): Promise<MonitorResult> {
  const settings = resolveSettings(ctx, options);
  const identity = settings.identity?.value;
  if (!identity) throw new CardsError('USAGE', 'give --identity ID: the identity to watch.');
  const expected = new Set((options.expectKey ?? []).map((k) => readPublicKey(ctx, k).toBase64()));
  const logKey = options.logKey ? ed25519Verifier(options.logKey) : undefined;
  const remote = new RemoteLog(settings.url.value, settings.timeout.value);
  const interval = options.interval;
  const total: MonitorResult = { identity, origin: '', from: -1, to: 0, events: [], unexpected: 0 };
  for (;;) {
    const { checkpoint, signed } = await fetchCheckpoint(remote, logKey);
    if (logKey) await acceptCheckpoint(ctx, checkpoint, signed, remote.tilesOf(checkpoint.origin));
    const path = statePath(ctx, checkpoint.origin, identity);
    if (!locks.has(path)) locks.set(path, await lockState(path, checkpoint.origin, identity));
    const state = openState(path, checkpoint.origin, identity);
    const from = loadSavedEdge(state.data?.edge);
    const events: MonitorEvent[] = [];
    const edge = await followLog({
      remote,
      from,
      checkpoint,
      onEntry: (index, entry) => {
        const event = eventOf(index, entry, identity, expected);
        if (event) events.push(event);
      },
    });
    const unexpected = events.filter((e) => e.unexpected).length;
    if (unexpected === 0) {
      state.data = { origin: checkpoint.origin, identity, edge: saveEdge(edge) };
      state.write();
    }
    Object.assign(total, {
      origin: checkpoint.origin,
      to: edge.size,
      unexpected: total.unexpected + unexpected,
    });
    if (total.from < 0) total.from = from.size;
    total.events.push(...events);
    if (!options.follow || unexpected > 0) return total;
    for (const e of events) emitItem(ctx, line, e, options);
    total.events = [];
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/**
 * One monitor at a time keeps the identity's state in a log (server/file-lock.ts): two would
 * each write over the other's, and the last to write could take the state back to an older
 * point. Holding it, temporary files a monitor killed mid-write left beside it are removed.
 */
async function lockState(path: string, origin: string, identity: string): Promise<FileLock> {
  const lock = await lockFileOf(
    path,
    (pid) =>
      `Another cards monitor (pid ${pid ?? 'unknown'}) is reading the log for ${identity} in ${origin}`,
    'wait until it ends (a --follow runs until stopped), or stop it and run this one again',
  );
  removeLeftTempsSync(path);
  return lock;
}

/** The card an entry is, when it is the identity's (entries that are not cards are skipped). */
function eventOf(
  index: number,
  entry: Uint8Array,
  identity: string,
  expected: ReadonlySet<string>,
): MonitorEvent | undefined {
  let snapshot;
  try {
    snapshot = parseSnapshot(entry, 'any');
  } catch {
    return undefined;
  }
  if (snapshot.identity !== identity) return undefined;
  const publicKey = snapshot.publicKey.byteLength ? encodeBase64(snapshot.publicKey) : '';
  return {
    index,
    id: cardIdOf(entry),
    kind: !publicKey ? 'revocation' : snapshot.previousCardId ? 'replacement' : 'new',
    publicKey,
    previousCardId: snapshot.previousCardId ?? null,
    createdAt: snapshot.createdAt,
    unexpected: expected.size > 0 && publicKey !== '' && !expected.has(publicKey),
  };
}

const statePath = (ctx: CommandContext, origin: string, identity: string): string =>
  homeDocumentPath(ctx.home, 'monitor', `${origin}\n${identity}`, 16);

/**
 * Where the identity's reading stopped (null: never read), a lowdb document (json-document.ts).
 * A file that is not JSON, not this identity's state in this origin, or not a whole edge
 * (isSavedEdge) is CONFIG_INVALID (exit 2) and left as it is: read from, it would be taken for
 * a log that changed (exit 8), or crash, or start over and overwrite it.
 */
function openState(path: string, origin: string, identity: string) {
  const invalid = (why: string): CardsError => new CardsError('CONFIG_INVALID', `${path}: ${why}`);
  return openJsonDocument<MonitorState | null>(
    path,
    (text) => {
      let state: Partial<MonitorState> | null;
      try {
        state = JSON.parse(text) as Partial<MonitorState> | null;
      } catch (err) {
        throw invalid((err as Error).message);
      }
      if (state?.origin !== origin || state.identity !== identity || !isSavedEdge(state.edge))
        throw invalid(`not the monitor state of ${identity} in ${origin}.`);
      return state as MonitorState;
    },
    null,
  );
}
