/**
 * The Keyknox contract of ../keyknox.ts on PostgreSQL (tables of migration 5, sql.ts). Every
 * write is one statement conditioned on the revision it replaces: an insert that does nothing
 * on conflict (revision 0: nothing stored), or an UPDATE/DELETE `… WHERE revision = $r`; its
 * row count says whether it landed. No transaction spans a read and a write, and none is
 * needed: of several servers' writes from one revision exactly one matches the row, and the
 * others are decided again by the rules (src/registry/keyknox-common.ts `untilWritten`).
 * `meta`/`value` are bytea (v1) or base64 in jsonb (v2 copies), stored as sent. The dates
 * (migration 6) are timestamptz, written from and read back to ms since the epoch exactly.
 */
import { decodeStoredBase64, encodeBase64 } from '../../core/encoding.js';
import type { Database } from './database.js';
import { DATES, dateValues, datesOf, type DateColumns } from './keyknox-dates.js';
import { V1_KEY, V2_KEY, v1Page, v2Page } from './keyknox-pages.js';
import { unavailable } from './errors.js';
import type {
  KeyknoxRecord,
  KeyknoxStore,
  KeyknoxV1Address,
  KeyknoxV1Listed,
  KeyknoxV1Record,
  KeyknoxV2Address,
  KeyknoxV2Entry,
  KeyknoxV2Listed,
  KeyknoxV2Filter,
  KeyknoxV2Summary,
} from '../keyknox.js';

const V1_GET = `SELECT meta, value, version, hash, revision, ${DATES} FROM cards_keyknox_v1
  WHERE app = $1 AND identity = $2`;
const V1_INSERT = `INSERT INTO cards_keyknox_v1
  (app, identity, meta, value, version, hash, revision, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`;
const V1_UPDATE = `UPDATE cards_keyknox_v1
  SET meta = $3, value = $4, version = $5, hash = $6, revision = $7, created_at = $8,
    updated_at = $9
  WHERE app = $1 AND identity = $2 AND revision = $10`;

const V2_WHERE = `app = $1 AND owner = $2 AND root = $3 AND path = $4 AND key = $5`;
const V2_GET = `SELECT copies, readers, hash, revision, ${DATES} FROM cards_keyknox_v2
  WHERE ${V2_WHERE}`;
const V2_INSERT = `INSERT INTO cards_keyknox_v2
  (app, owner, root, path, key, copies, readers, hash, revision, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING`;
const V2_UPDATE = `UPDATE cards_keyknox_v2
  SET copies = $6, readers = $7, hash = $8, revision = $9, created_at = $10, updated_at = $11
  WHERE ${V2_WHERE} AND revision = $12`;
const V2_DELETE = `DELETE FROM cards_keyknox_v2 WHERE ${V2_WHERE} AND revision = $6`;
/** $3 root and $4 path: null matches any. Code-point order, as every engine lists. */
const V2_LIST = `SELECT root, path, key, readers, revision FROM cards_keyknox_v2
  WHERE app = $1 AND owner = $2 AND ($3::text IS NULL OR root = $3)
    AND ($4::text IS NULL OR path = $4)
  ORDER BY root COLLATE "C", path COLLATE "C", key COLLATE "C"`;

/** Every blob and entry, a page at a time in primary-key order (keyset paging). */
const V1_ALL = `SELECT app, identity, meta, value, version, hash, revision, ${DATES}
  FROM cards_keyknox_v1
  WHERE $4 OR (${V1_KEY}) > ($1, $2)
  ORDER BY ${V1_KEY} LIMIT $3`;
const V2_ALL = `SELECT app, owner, root, path, key, copies, readers, hash, revision, ${DATES}
  FROM cards_keyknox_v2
  WHERE $7 OR (${V2_KEY}) > ($1, $2, $3, $4, $5)
  ORDER BY ${V2_KEY} LIMIT $6`;
/** Records per page of records(). */
const PAGE = 200;

interface V1Row extends DateColumns {
  meta: Buffer;
  value: Buffer;
  version: number;
  hash: string;
  revision: string;
}
interface V2Row extends DateColumns {
  copies: { meta: string; value: string }[];
  readers: { identity: string; copy: number }[];
  hash: string;
  revision: string;
}
interface ListRow {
  root: string;
  path: string;
  key: string;
  readers: { identity: string }[];
  revision: string;
}

const bytes = (b: Buffer): Uint8Array => new Uint8Array(b);
const buffer = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);
const fromBase64 = (text: string): Uint8Array => decodeStoredBase64(text) ?? new Uint8Array(0);
const v2Key = (a: KeyknoxV2Address): string[] => [a.app, a.owner, a.root, a.path, a.key];

const v1Record = (row: V1Row): KeyknoxV1Record => ({
  meta: bytes(row.meta),
  value: bytes(row.value),
  version: row.version,
  hash: row.hash,
  revision: Number(row.revision),
  ...datesOf(row),
});

const v2Entry = (address: KeyknoxV2Address, row: V2Row): KeyknoxV2Entry => ({
  address: { ...address },
  copies: row.copies.map((c) => ({ meta: fromBase64(c.meta), value: fromBase64(c.value) })),
  readers: row.readers.map((r) => ({ identity: r.identity, copy: r.copy })),
  hash: row.hash,
  revision: Number(row.revision),
  ...datesOf(row),
});

export class PostgresKeyknoxStore implements KeyknoxStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async v1Get(address: KeyknoxV1Address): Promise<KeyknoxV1Record | undefined> {
    const [row] = await this.#db.rows<V1Row>(V1_GET, [address.app, address.identity]);
    return row && v1Record(row);
  }

  v1Put(address: KeyknoxV1Address, next: KeyknoxV1Record, expected: number): Promise<boolean> {
    const values: unknown[] = [
      address.app,
      address.identity,
      buffer(next.meta),
      buffer(next.value),
      next.version,
      next.hash,
      next.revision,
      ...dateValues(next),
    ];
    const landed = async (): Promise<boolean> => {
      const row = await this.v1Get(address);
      return row?.revision === next.revision && row.hash === next.hash;
    };
    return expected === 0
      ? this.#landed(V1_INSERT, values, landed)
      : this.#landed(V1_UPDATE, [...values, expected], landed);
  }

  async v2Get(address: KeyknoxV2Address): Promise<KeyknoxV2Entry | undefined> {
    const [row] = await this.#db.rows<V2Row>(V2_GET, v2Key(address));
    return row && v2Entry(address, row);
  }

  v2Put(next: KeyknoxV2Entry, expected: number): Promise<boolean> {
    const values: unknown[] = [
      ...v2Key(next.address),
      JSON.stringify(
        next.copies.map((c) => ({ meta: encodeBase64(c.meta), value: encodeBase64(c.value) })),
      ),
      JSON.stringify(next.readers.map((r) => ({ identity: r.identity, copy: r.copy }))),
      next.hash,
      next.revision,
      ...dateValues(next),
    ];
    const landed = async (): Promise<boolean> => {
      const entry = await this.v2Get(next.address);
      return entry?.revision === next.revision && entry.hash === next.hash;
    };
    return expected === 0
      ? this.#landed(V2_INSERT, values, landed)
      : this.#landed(V2_UPDATE, [...values, expected], landed);
  }

  v2Delete(address: KeyknoxV2Address, expected: number): Promise<boolean> {
    const landed = async (): Promise<boolean> => (await this.v2Get(address)) === undefined;
    return this.#landed(V2_DELETE, [...v2Key(address), expected], landed);
  }

  async v2List(filter: KeyknoxV2Filter): Promise<KeyknoxV2Summary[]> {
    const rows = await this.#db.rows<ListRow>(V2_LIST, [
      filter.app,
      filter.owner,
      filter.root ?? null,
      filter.path ?? null,
    ]);
    return rows.map((row) => ({
      address: {
        app: filter.app,
        owner: filter.owner,
        root: row.root,
        path: row.path,
        key: row.key,
      },
      readers: row.readers.map((r) => r.identity),
      revision: Number(row.revision),
    }));
  }

  v1Page(after: KeyknoxV1Address | undefined, limit: number): Promise<KeyknoxV1Listed[]> {
    return v1Page(this.#db, after, limit);
  }

  v2Page(after: KeyknoxV2Address | undefined, limit: number): Promise<KeyknoxV2Listed[]> {
    return v2Page(this.#db, after, limit);
  }

  async *records(): AsyncGenerator<KeyknoxRecord> {
    const v1 = this.#pages<V1Row & KeyknoxV1Address>(V1_ALL, 2, (r) => [r.app, r.identity]);
    for await (const { app, identity, ...row } of v1)
      yield { kind: 'keyknox1', address: { app, identity }, record: v1Record(row) };
    const v2 = this.#pages<V2Row & KeyknoxV2Address>(V2_ALL, 5, v2Key);
    for await (const { app, owner, root, path, key, ...row } of v2)
      yield { kind: 'keyknox2', entry: v2Entry({ app, owner, root, path, key }, row) };
  }

  /** Every row of `text`, a page at a time: $1…$n the key of the last row read (`keyOf`). */
  async *#pages<Row>(text: string, n: number, keyOf: (row: Row) => string[]): AsyncGenerator<Row> {
    for (let after: string[] | undefined; ;) {
      const key = after ?? Array<string>(n).fill('');
      const rows = await this.#db.rows<Row>(text, [...key, PAGE, after === undefined]);
      yield* rows;
      const last = rows.at(-1);
      if (!last || rows.length < PAGE) return;
      after = keyOf(last);
    }
  }

  async reset(): Promise<void> {
    try {
      await this.#db.query('TRUNCATE cards_keyknox_v1, cards_keyknox_v2');
    } catch (err) {
      throw unavailable(err);
    }
  }

  /**
   * Runs one conditional write: whether it changed a row. One whose answer was lost counts as
   * changed when `landed` finds the row as the write left it (Database.write).
   */
  async #landed(text: string, values: unknown[], landed: () => Promise<boolean>): Promise<boolean> {
    const check = 'Pull the entry before pushing it again.';
    return (await this.#db.write(text, values, landed, check)) === 1;
  }
}
