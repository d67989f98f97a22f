/**
 * e3kit's Keyknox entries in a dump (`cards export`/`import`, GET/POST /_cards/export|import,
 * `serve --export-on-exit`/`--import`): one `keyknox1` or `keyknox2` line per blob or entry
 * (store/keyknox-record.ts: owner, root/path/key, readers and their copies, the bytes as base64,
 * version, hash and revision kept as they are, so a client's hash is still current after the
 * move), written before the cards. A dump without such lines imports as it always did.
 *
 * Import reads the Keyknox lines before storing them, up to HELD_MAX characters of them at a
 * time, so a refused line (not a record this `cards` reads, a deletion line, text that is not
 * well-formed Unicode without U+0000 as the Keyknox routes refuse it, a record no push could
 * leave, an entry stored differently already) among the first HELD_MAX stores no Keyknox entry,
 * and, the lines being ahead of the cards in an export, no card either; one further on leaves
 * those stored before it (an import with `append` run again skips them). Each record goes in
 * through the store's compare-and-swap from revision 0 (nothing stored there); with `append`,
 * one stored identically already is skipped.
 */
import { isPortableText } from '../core/encoding.js';
import { asClause, CardsError } from '../core/errors.js';
import type { KeyknoxRecord, KeyknoxStore } from '../store/keyknox.js';
import {
  isKeyknoxLine,
  keyknox1Line,
  keyknox2Line,
  keyknoxLineText,
  readKeyknoxLine,
} from '../store/keyknox-record.js';
import { LIMITS } from '../core/limits.js';
import { isKeyknoxHash } from './keyknox-common.js';
import { checkAddressSize, part, readers } from './keyknox-input.js';
import { checkEntryBounds } from './keyknox-v2.js';

/** Lines per chunk of an export. */
const CHUNK = 100;

/** How a line of a dump that is a Keyknox record begins (before any other check). */
const KEYKNOX_HEAD = /^\s*\{\s*"keyknox/;

/** Every blob and entry as dump lines, a chunk of lines at a time. */
export async function* exportKeyknox(store: KeyknoxStore): AsyncGenerator<string> {
  let chunk: string[] = [];
  for await (const record of store.records()) {
    chunk.push(`${keyknoxLineText(record)}\n`);
    if (chunk.length >= CHUNK) {
      yield chunk.join('');
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk.join('');
}

/** Line `number` of an import refused (IMPORT_INVALID), a card's line or a Keyknox line. */
export const badLine = (number: number, why: string): CardsError =>
  new CardsError('IMPORT_INVALID', `Import line ${number} ${why}.`);

/** Every string of a record's address and readers. */
const textOf = (r: KeyknoxRecord): string[] =>
  r.kind === 'keyknox1'
    ? [r.address.app, r.address.identity]
    : [...Object.values(r.entry.address), ...r.entry.readers.map((reader) => reader.identity)];

const formError = (message: string): CardsError => new CardsError('IMPORT_INVALID', message);

/**
 * A record holds only what the Keyknox rules store (keyknox-v1.ts, keyknox-v2.ts), so that every
 * engine keeps it and every answer about it can be sent: an address a push could name (the
 * parts from the token non-empty, root, path, key and readers as a push gives them, the whole
 * within LIMITS.keyknoxAddressMax), an entry within its bounds, a hash as the rules write one
 * (it is sent in a header), counters that the pushes to come keep exact on every engine
 * (LIMITS.keyknoxCounterMax), dates every engine keeps (LIMITS.keyknoxDateMax).
 */
function checkForm(record: KeyknoxRecord): void {
  const stored = record.kind === 'keyknox1' ? record.record : record.entry;
  if (record.kind === 'keyknox1') {
    if (record.address.identity === '') throw formError('"identity" is empty');
    checkAddressSize([record.address.app, record.address.identity]);
    if (record.record.version > LIMITS.keyknoxCounterMax)
      throw formError(`"version" is above ${LIMITS.keyknoxCounterMax}`);
    const size = record.record.meta.byteLength + record.record.value.byteLength;
    if (size > LIMITS.keyknoxPushMax)
      throw formError(
        `"meta" and "value" hold ${size} bytes, more than a push's body of at most ${LIMITS.keyknoxPushMax}`,
      );
  } else {
    const { address } = record.entry;
    if (address.owner === '') throw formError('"owner" is empty');
    for (const name of ['root', 'path', 'key'] as const) part(address[name], name);
    const named = record.entry.readers.map((r) => r.identity);
    if (readers(named).length !== named.length) throw formError('a reader is named twice');
    checkAddressSize(Object.values(address));
    checkEntryBounds(record.entry);
  }
  if (!isKeyknoxHash(stored.hash))
    throw formError('"hash" is not base64 of 1 to 64 bytes, as a push writes it');
  if (stored.revision > LIMITS.keyknoxCounterMax)
    throw formError(`"revision" is above ${LIMITS.keyknoxCounterMax}`);
  for (const name of ['created', 'updated'] as const) {
    const at = stored[name];
    if (at !== undefined && at > LIMITS.keyknoxDateMax)
      throw formError(`"${name}" is after ${new Date(LIMITS.keyknoxDateMax).toISOString()}`);
  }
}

/** The Keyknox lines of one import: taken while reading, stored together once all are read. */
/**
 * Characters of Keyknox lines held at most before they are stored (two of the longest lines,
 * LIMITS.keyknoxLineMax): an import holds what it has read of them until its first card, so
 * without a bound a dump of many Keyknox lines would hold them all (600 blobs of 1 MB grew a
 * server by 1.4 GB). Past it, what is held is stored, and reading goes on.
 */
const HELD_MAX = 2 * LIMITS.keyknoxLineMax;

export class KeyknoxImport {
  readonly #store: KeyknoxStore | undefined;
  #held: { record: KeyknoxRecord; number: number }[] = [];
  #heldChars = 0;
  imported = 0;
  skipped = 0;

  /** `store` undefined: a registry without e3kit's routes, which refuses Keyknox lines. */
  constructor(store: KeyknoxStore | undefined) {
    this.#store = store;
  }

  /** Whether line `number` is a Keyknox line (then checked and held; IMPORT_INVALID if bad). */
  take(line: string, number: number): boolean {
    if (!KEYKNOX_HEAD.test(line)) return false;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw badLine(number, 'is not valid JSON');
    }
    if (!isKeyknoxLine(value)) return false;
    if (this.#store === undefined)
      throw badLine(number, 'is a Keyknox entry, and this registry keeps none');
    let record;
    try {
      record = readKeyknoxLine(value, 'it');
    } catch (err) {
      throw badLine(number, `is not a Keyknox record this cards reads: ${(err as Error).message}`);
    }
    if (record.kind === 'keyknox2del') throw badLine(number, 'deletes a Keyknox entry');
    if (!textOf(record).every(isPortableText))
      throw badLine(number, 'holds text that is not well-formed Unicode without U+0000');
    // What a push may leave in a blob or an entry, an import may bring in.
    try {
      checkForm(record);
    } catch (err) {
      throw badLine(number, `is refused as a push would be: ${asClause((err as Error).message)}`);
    }
    this.#held.push({ record, number });
    this.#heldChars += line.length;
    return true;
  }

  /** Forgets what is held: a dump's check (its lines taken to be judged, never stored). */
  drop(): void {
    this.#held = [];
    this.#heldChars = 0;
  }

  /** Whether what is held has reached HELD_MAX: the caller stores it before reading on. */
  get full(): boolean {
    return this.#heldChars >= HELD_MAX;
  }

  /** Stores what was taken since the last call, in order; a conflict refuses the rest. */
  async store(append: boolean): Promise<void> {
    const held = this.#held;
    this.#held = [];
    this.#heldChars = 0;
    const store = this.#store;
    if (!store) return;
    for (const { record, number } of held) {
      const landed =
        record.kind === 'keyknox1'
          ? await store.v1Put(record.address, record.record, 0)
          : await store.v2Put(record.entry, 0);
      if (landed) {
        this.imported++;
        continue;
      }
      if (append && (await this.#storedAlready(store, record))) {
        this.skipped++;
        continue;
      }
      throw badLine(number, 'names a Keyknox entry the registry holds already, stored otherwise');
    }
  }

  async #storedAlready(store: KeyknoxStore, record: KeyknoxRecord): Promise<boolean> {
    const text = keyknoxLineText(record);
    if (record.kind === 'keyknox1') {
      const stored = await store.v1Get(record.address);
      return stored !== undefined && keyknox1Line(record.address, stored) === text;
    }
    const stored = await store.v2Get(record.entry.address);
    return stored !== undefined && keyknox2Line(stored) === text;
  }
}
