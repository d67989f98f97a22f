/**
 * The admin listings' pages are bounded in bytes as well as in rows, over a real socket: rows
 * whose page at `limit=1000` would pass LIMITS.adminPageBytes (Keyknox v2 entries of 1,024
 * readers of up to 1,024 bytes each, as any token holder can make them through e3kit's push;
 * cards and identities whose identities are 1,024 bytes JSON escapes to six bytes each) come in
 * pages whose rows hold at most that many bytes, or one row, and a walk by next_cursor sees every
 * row exactly once, in order.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { LIMITS } from '../../src/core/limits.js';
import { PROFILES } from '../../src/core/profile.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { createApp } from '../../src/http/app.js';
import { createAuthenticator } from '../../src/http/auth.js';
import { createRegistry } from '../../src/registry/registry.js';
import type { KeyknoxV2Entry } from '../../src/store/keyknox.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';
import { makeCard } from './card-kit.js';
import { e3kitDeps } from './e3kit-kit.js';

const TOKEN = 'cards_admin_0123456789abcdef0123456789';
const BUDGET = LIMITS.adminPageBytes;
const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers.splice(0)) await close();
});

async function served() {
  const profile = PROFILES.service;
  const serviceKey = generatePrivateKey();
  const registry = createRegistry({ store: new MemoryStore(), serviceKey, signer: profile.signer });
  const e3kit = await e3kitDeps();
  const app = await createApp({
    registry,
    profile,
    auth: createAuthenticator({
      keys: [{ key: generatePrivateKey().publicKey }],
      scheme: 'Service',
    }),
    version: 'test',
    admin: { token: TOKEN, loopbackOpen: false, serviceKey: serviceKey.publicKey.toBase64() },
    e3kit,
    keyknox: e3kit.keyknox,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(() => app.close());
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return { registry, store: e3kit.keyknox, url };
}

/**
 * Every page of `route` at limit=1000, following next_cursor: each answered 200 with its rows'
 * JSON within the budget unless it holds a single row.
 */
async function walk<T>(url: string, route: string, field: string) {
  const rows: T[] = [];
  let pages = 0;
  for (let cursor: string | null = ''; cursor !== null; pages++) {
    const r = await fetch(
      `${url}/_cards/${route}?limit=1000&cursor=${encodeURIComponent(cursor)}`,
      { headers: { authorization: `Bearer ${TOKEN}` } },
    );
    const text = await r.text();
    assert.equal(r.status, 200, text.slice(0, 200));
    const body = JSON.parse(text) as Record<string, unknown> & { next_cursor: string | null };
    const items = body[field] as T[];
    assert.ok(items.length >= 1 || pages === 0, 'a page with a next_cursor before it holds a row');
    const bytes = Buffer.byteLength(JSON.stringify(items));
    assert.ok(
      bytes <= BUDGET || items.length === 1,
      `page ${pages}: ${items.length} rows in ${bytes} bytes, over ${BUDGET}`,
    );
    rows.push(...items);
    cursor = body.next_cursor;
  }
  return { rows, pages };
}

const copy = { meta: new Uint8Array([1]), value: new Uint8Array([2, 3]) };

/** An entry of `owner` at key `key` naming `readers`, stored as the Keyknox rules store one. */
const entry = (owner: string, key: string, readers: readonly string[]): KeyknoxV2Entry => ({
  address: { app: 'app', owner, root: 'e3kit', path: 'backup', key },
  copies: [copy],
  readers: readers.map((identity) => ({ identity, copy: 0 })),
  hash: `hash-${key}`,
  revision: 1,
  created: 1_700_000_000_000,
  updated: 1_700_000_000_000,
});

/** `count` distinct identities of exactly `bytes` UTF-8 bytes, filled with `fill` (one byte). */
const names = (count: number, bytes: number, fill: string, tag: string): string[] =>
  Array.from({ length: count }, (_, i) => {
    const head = `${tag}${i}-`;
    return head + fill.repeat(bytes - head.length);
  });

describe('admin pages bounded in bytes', () => {
  test('GET /_cards/keyknox: entries of 1,024 long readers, walked whole in bounded pages', async () => {
    const { store, url } = await served();
    const max = LIMITS.keyknoxReadersMax;
    const identity = LIMITS.identityMax;
    for (const who of ['alice', 'bob'])
      assert.ok(
        await store.v1Put(
          { app: 'app', identity: who },
          { ...copy, version: 1, hash: `v1-${who}`, revision: 1 },
          0,
        ),
      );
    const keys: string[] = [];
    // Readers JSON escapes to two bytes a byte ('"'), then one entry whose row alone passes the
    // budget (U+0001, six bytes a byte): about 14 MiB at one page of 1,000 rows.
    for (let i = 0; i < 6; i++) keys.push(`k${i}`);
    for (const key of keys)
      assert.ok(await store.v2Put(entry('carol', key, names(max, identity, '"', key)), 0));
    assert.ok(await store.v2Put(entry('dave', 'huge', names(max, identity, '\u0001', 'h')), 0));
    keys.push('huge');

    const { rows, pages } = await walk<{ api: string; owner: string; key: string | null }>(
      url,
      'keyknox',
      'keyknox',
    );
    assert.deepEqual(
      rows.map((row) => (row.api === 'v1' ? `v1 ${row.owner}` : `v2 ${row.key}`)),
      ['v1 alice', 'v1 bob', ...keys.map((key) => `v2 ${key}`)],
      'every blob and entry exactly once, in order',
    );
    assert.ok(pages >= 4, `${pages} pages`);
  });

  test('GET /_cards/cards and /_cards/identities: 1,000 rows of long escaped identities', async () => {
    const { registry, url } = await served();
    const identities = names(LIMITS.adminPageMax, LIMITS.identityMax, '\u0001', 'u');
    const ids: string[] = [];
    for (const identity of identities)
      ids.push((await registry.createCard(makeCard(identity).raw, identity)).id);

    const cards = await walk<{ id: string }>(url, 'cards', 'cards');
    assert.deepEqual(
      cards.rows.map((row) => row.id),
      ids,
    );
    assert.ok(cards.pages >= 2, `${cards.pages} pages`);

    const listed = await walk<{ identity: string }>(url, 'identities', 'identities');
    assert.deepEqual(
      listed.rows.map((row) => row.identity),
      [...identities].sort(),
    );
    assert.ok(listed.pages >= 2, `${listed.pages} pages`);
  });
});
