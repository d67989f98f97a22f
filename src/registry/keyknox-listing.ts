/**
 * The admin listing of e3kit's Keyknox blobs and entries (GET /_cards/keyknox): every v1 blob,
 * then every v2 entry, a page at a time over the store's ordered pages (store/keyknox.ts
 * `v1Page`, `v2Page`). Metadata only: who, where, readers, size, wire version and hash, dates;
 * never `meta` or `value`. The cursor is the last address of the previous page, opaque to the
 * caller (base64url of a JSON list). Knows nothing of HTTP.
 */
import {
  decodeBase64Url,
  decodeUtf8,
  encodeBase64Url,
  isPortableText,
  utf8,
} from '../core/encoding.js';
import { CardsError } from '../core/errors.js';
import type { KeyknoxRow } from '../core/admin-rows.js';
import { LIMITS } from '../core/limits.js';
import { pageOf, type Page } from './admin-page.js';
import type {
  KeyknoxDates,
  KeyknoxStore,
  KeyknoxV1Address,
  KeyknoxV2Address,
} from '../store/keyknox.js';
import { versionString } from './keyknox-common.js';

/** How many v2 entries one read of the store asks for. */
const V2_CHUNK = 32;

type Position =
  | { readonly api: 'v1'; readonly address: KeyknoxV1Address }
  | { readonly api: 'v2'; readonly address: KeyknoxV2Address };

const iso = (ms: number | undefined): string | null =>
  ms === undefined ? null : new Date(ms).toISOString();
const dates = (r: KeyknoxDates) => ({ created: iso(r.created), updated: iso(r.updated) });

/** The cursor after `row`: its address (a v1 blob's identity is its owner). */
const cursorOf = (row: KeyknoxRow): string =>
  encodeBase64Url(
    utf8(
      JSON.stringify(
        row.api === 'v1'
          ? ['v1', row.app, row.owner]
          : ['v2', row.app, row.owner, row.root, row.path, row.key],
      ),
    ),
  );

/** The position a cursor names; QUERY_INVALID for anything cursorOf did not write. */
function positionOf(cursor: string): Position {
  let parts: unknown;
  try {
    parts = JSON.parse(decodeUtf8(decodeBase64Url(cursor) ?? new Uint8Array([0xff])) ?? '');
  } catch {
    parts = undefined;
  }
  // No stored address holds other text (docs/http.md, "Text"): never handed to an engine.
  if (Array.isArray(parts) && parts.every((p) => typeof p === 'string' && isPortableText(p))) {
    const [api, app, ...rest] = parts as string[];
    if (api === 'v1' && app !== undefined && rest.length === 1)
      return { api, address: { app, identity: rest[0]! } };
    if (api === 'v2' && app !== undefined && rest.length === 4) {
      const [owner, root, path, key] = rest as [string, string, string, string];
      return { api, address: { app, owner, root, path, key } };
    }
  }
  throw new CardsError(
    'QUERY_INVALID',
    `Query parameter cursor must be the next_cursor of a previous page, got "${cursor}".`,
  );
}

/**
 * The page after `cursor` (none: the first), at most `limit` rows and admin-page.ts's bytes:
 * blobs first, then entries. `next` is null once the last row has been listed.
 */
export async function listKeyknox(
  store: KeyknoxStore | undefined,
  cursor: string | undefined,
  limit: number,
): Promise<Page<KeyknoxRow>> {
  const from = cursor === undefined ? undefined : positionOf(cursor);
  if (store === undefined) return { items: [], next: null };
  const items: KeyknoxRow[] = [];
  if (from === undefined || from.api === 'v1') {
    for (const blob of await store.v1Page(from?.address as KeyknoxV1Address | undefined, limit)) {
      items.push({
        api: 'v1',
        app: blob.address.app,
        owner: blob.address.identity,
        root: null,
        path: null,
        key: null,
        readers: [],
        size: blob.size,
        version: versionString(blob.version),
        hash: blob.hash,
        ...dates(blob),
      });
    }
  }
  // Entries are read V2_CHUNK at a time, and no more once their readers alone pass the page's
  // bytes (pageOf then cuts the page exactly): an entry may name 1,024 readers of 1 KiB, so a
  // page read whole could pull a gigabyte out of the store to send a few MiB.
  let readerBytes = 0;
  let after = from?.api === 'v2' ? from.address : undefined;
  while (items.length < limit && readerBytes <= LIMITS.adminPageBytes) {
    const want = Math.min(V2_CHUNK, limit - items.length);
    const chunk = await store.v2Page(after, want);
    for (const entry of chunk) {
      const { app, owner, root, path, key } = entry.address;
      for (const reader of entry.readers) readerBytes += Buffer.byteLength(reader);
      items.push({
        api: 'v2',
        app,
        owner,
        root,
        path,
        key,
        readers: entry.readers,
        size: entry.size,
        version: null,
        hash: entry.hash,
        ...dates(entry),
      });
    }
    if (chunk.length < want) break;
    after = chunk.at(-1)?.address;
  }
  return pageOf(items, limit, cursorOf);
}
