/**
 * The admin listing's pages of Keyknox blobs and entries on PostgreSQL (../keyknox.ts `v1Page`,
 * `v2Page`): metadata only (the sizes computed in the database, never the bytes sent), in
 * code-point order on each table's key, as a range of migration 6's indexes (sql.ts): a row
 * comparison with the last address of the previous page, then LIMIT.
 */
import type {
  KeyknoxV1Address,
  KeyknoxV1Listed,
  KeyknoxV2Address,
  KeyknoxV2Listed,
} from '../keyknox.js';
import type { Database } from './database.js';
import { DATES, datesOf, type DateColumns } from './keyknox-dates.js';

const C = (columns: readonly string[]): string => columns.map((c) => `${c} COLLATE "C"`).join(', ');
/** Each table's key in code-point order: the order of its pages and of an export's records. */
export const V1_KEY = C(['app', 'identity']);
export const V2_KEY = C(['app', 'owner', 'root', 'path', 'key']);
const after = (key: string, count: number): string =>
  `WHERE (${key}) > (${Array.from({ length: count }, (_, i) => `$${i + 2}`).join(', ')})`;

/** $1 the page size, then the last address of the previous page (none: from the first). */
const v1Query = (from: boolean): string => `SELECT app, identity, version, hash,
    octet_length(meta) + octet_length(value) AS size, ${DATES}
  FROM cards_keyknox_v1 ${from ? after(V1_KEY, 2) : ''}
  ORDER BY ${V1_KEY} LIMIT $1`;
const V1_FIRST = v1Query(false);
const V1_AFTER = v1Query(true);

/** The owner's copy is `copies[0]`; its size is that of its decoded base64. */
const v2Query = (from: boolean): string => `SELECT app, owner, root, path, key, readers, hash,
    octet_length(decode(copies->0->>'meta', 'base64'))
      + octet_length(decode(copies->0->>'value', 'base64')) AS size, ${DATES}
  FROM cards_keyknox_v2 ${from ? after(V2_KEY, 5) : ''}
  ORDER BY ${V2_KEY} LIMIT $1`;
const V2_FIRST = v2Query(false);
const V2_AFTER = v2Query(true);

interface V1Row extends DateColumns, KeyknoxV1Address {
  version: number;
  hash: string;
  size: number;
}
interface V2Row extends DateColumns, KeyknoxV2Address {
  readers: { identity: string }[];
  hash: string;
  size: number;
}

export async function v1Page(
  db: Database,
  from: KeyknoxV1Address | undefined,
  limit: number,
): Promise<KeyknoxV1Listed[]> {
  const rows = await (from === undefined
    ? db.rows<V1Row>(V1_FIRST, [limit])
    : db.rows<V1Row>(V1_AFTER, [limit, from.app, from.identity]));
  return rows.map((row) => ({
    address: { app: row.app, identity: row.identity },
    version: row.version,
    hash: row.hash,
    size: Number(row.size),
    ...datesOf(row),
  }));
}

export async function v2Page(
  db: Database,
  from: KeyknoxV2Address | undefined,
  limit: number,
): Promise<KeyknoxV2Listed[]> {
  const rows = await (from === undefined
    ? db.rows<V2Row>(V2_FIRST, [limit])
    : db.rows<V2Row>(V2_AFTER, [limit, from.app, from.owner, from.root, from.path, from.key]));
  return rows.map(({ app, owner, root, path, key, ...row }) => ({
    address: { app, owner, root, path, key },
    readers: row.readers.map((r) => r.identity),
    hash: row.hash,
    size: Number(row.size),
    ...datesOf(row),
  }));
}
