/**
 * The log of a registry on both engines: every accepted card (new, replacement,
 * revoking card, the service-built revoking card of revoke-by-id) is entry `seq`, its decoded
 * snapshot; every proof served verifies against the signed checkpoint under the log key; the
 * entry bundles hold the registry's cards in order; tiles carry tlog-tiles caching headers.
 * The JSON engine keeps the log across restarts and refuses a rewound store or tampered tiles.
 * A reset of the registry begins a new log (`<origin>/reset-N`) instead of rewinding the old.
 * On PostgreSQL every server on the database extends and serves the one log.
 */
import assert from 'node:assert/strict';
import {
  copyFileSync,
  cpSync,
  existsSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { decodeBase64 } from '../../src/core/encoding.js';
import { mintToken } from '../../src/crypto/tokens.js';
import { createApp } from '../../src/http/app.js';
import { openCheckpoint } from '../../src/log/checkpoint.js';
import { decodeEntryBundle } from '../../src/log/entry-bundle.js';
import { leafHash } from '../../src/log/hash.js';
import { prefixOfOrigin } from '../../src/log/log-epochs.js';
import { epochOrigin } from '../../src/log/log-epochs.js';
import { ed25519Verifier, formatVerifierKey, KEY_TYPE_ED25519 } from '../../src/log/note-keys.js';
import { tilePath } from '../../src/log/tile-path.js';
import { verifyTlogProof } from '../../src/log/tlog-proof.js';
import {
  makeTempDir,
  removeTempDirs,
  runServeToExit,
  startServer,
  type Served,
} from '../helpers/server.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { loggedMemoryRegistry } from '../helpers/log-kit.js';
import { freshStoreUrl, testPostgres, type TestPostgres } from '../helpers/postgres.js';
import { makeCard, makeRevocation } from '../http/card-kit.js';
import { call } from '../reliability/kit.js';

after(removeTempDirs);

const snapshotOf = (json: string): Uint8Array =>
  decodeBase64((JSON.parse(json) as { content_snapshot: string }).content_snapshot) as Uint8Array;

interface Getter {
  get(path: string): Promise<{ status: number; text: string; bytes: Uint8Array; headers: Headers }>;
}

/** Creates `n` cards over `post`: new cards, replacements, revoking cards, revoke-by-id. */
async function workload(
  post: (
    path: string,
    body: unknown,
    identity: string,
  ) => Promise<{ status: number; text: string }>,
  n: number,
): Promise<string[]> {
  const jsons: string[] = [];
  let last: string | undefined;
  for (let i = 0; jsons.length < n; i++) {
    const identity = `user${i % 7}`;
    let reply;
    if (last && i % 5 === 1) {
      const card = makeCard('chain', { previousCardId: last });
      reply = await post('/card/v5', card.raw, 'chain');
      last = card.id;
    } else if (last && i % 50 === 3) {
      reply = await post(`/card/v5/actions/revoke/${last}`, {}, 'chain');
      last = undefined;
    } else if (last && i % 50 === 28) {
      reply = await post('/card/v5/actions/revoke', makeRevocation('chain', last).raw, 'chain');
      last = undefined;
    } else if (!last && i % 5 === 0) {
      const card = makeCard('chain');
      reply = await post('/card/v5', card.raw, 'chain');
      last = card.id;
    } else {
      reply = await post('/card/v5', makeCard(identity).raw, identity);
    }
    assert.ok(reply.status < 300, reply.text);
    jsons.push(reply.text);
  }
  return jsons;
}

/** Checks proofs, bundles and headers of a served log holding exactly `jsons`, in order. */
async function checkServedLog(http: Getter, vkey: string, jsons: readonly string[]): Promise<void> {
  const verifier = ed25519Verifier(vkey);
  // Cards are integrated within the log interval of their acknowledgement.
  let cp = await http.get('/log/checkpoint');
  for (
    let wait = 0;
    wait < 100 && !cp.text.startsWith(`${verifier.name}\n${jsons.length}\n`);
    wait++
  ) {
    await new Promise((resolve) => setTimeout(resolve, 30));
    cp = await http.get('/log/checkpoint');
  }
  assert.equal(cp.status, 200);
  assert.match(cp.headers.get('cache-control') ?? '', /max-age=2\b/);
  const { checkpoint } = openCheckpoint(cp.text, [verifier], verifier.name);
  assert.equal(checkpoint.size, jsons.length, 'every card is in the checkpoint');
  for (const [i, json] of jsons.entries()) {
    const id = (await import('../../src/core/card-id.js')).cardIdOf(snapshotOf(json));
    const proof = await http.get(`/log/proof/${id}`);
    assert.equal(proof.status, 200, proof.text);
    const verified = verifyTlogProof(proof.text, snapshotOf(json), {
      logKeys: [verifier],
      origin: verifier.name,
    });
    assert.equal(verified.index, i, `card ${i} is entry ${i}`);
  }
  const entries: Uint8Array[] = [];
  const log = `/log/${prefixOfOrigin(verifier.name)}`;
  for (let index = 0; index * 256 < jsons.length; index++) {
    const width = Math.min(256, jsons.length - index * 256);
    const path = `${log}${tilePath({ level: 'entries', index, width })}`;
    const bundle = await http.get(path);
    assert.equal(bundle.status, 200, path);
    assert.equal(bundle.headers.get('content-type'), 'application/octet-stream');
    // Partial ones too: a partial of width W never changes (C2SP tlog-tiles: immutable).
    assert.match(bundle.headers.get('cache-control') ?? '', /max-age=31536000, immutable/);
    entries.push(...(decodeEntryBundle(bundle.bytes) ?? []));
  }
  assert.deepEqual(
    entries.map((e) => Buffer.from(e).toString('base64')),
    jsons.map((j) => Buffer.from(snapshotOf(j)).toString('base64')),
    'the entries are the cards, in acceptance order',
  );
  const beyond = await http.get(`${log}${tilePath({ level: 0, index: 99, width: 256 })}`);
  assert.equal(beyond.status, 404);
  assert.equal(JSON.parse(beyond.text).code, '91008');
  // A tile has one name: a percent-encoded alias of one just served is not another.
  const first = `${log}${tilePath({ level: 'entries', index: 0, width: Math.min(256, jsons.length) })}`;
  assert.equal((await http.get(first)).status, 200);
  const alias = await http.get(first.replace('/entries/0', '/entries/%30'));
  assert.equal(alias.status, 404, alias.text);
  assert.equal(JSON.parse(alias.text).code, '91008');
}

describe('the log on the memory engine', () => {
  test('300 cards (a tile boundary crossed): proofs verify, bundles are the cards', async () => {
    const { profile, appKey, tiles, writer, log, registry, auth } = await loggedMemoryRegistry(
      'test.local/log',
      20,
    );
    const app = await createApp({ registry, profile, auth, version: 't', log });
    const post = async (url: string, body: unknown, identity: string) => {
      const token = await mintToken({ key: appKey, identity, now: Date.now(), ttlSeconds: 60 });
      const r = await app.inject({
        method: 'POST',
        url,
        payload: JSON.stringify(body),
        headers: { authorization: `Service ${token}`, 'content-type': 'application/json' },
      });
      return { status: r.statusCode, text: r.body };
    };
    const jsons = await workload(post, 300);
    const http: Getter = {
      async get(url) {
        const r = await app.inject({ method: 'GET', url });
        return {
          status: r.statusCode,
          text: r.body,
          bytes: new Uint8Array(r.rawPayload),
          headers: new Headers(r.headers as Record<string, string>),
        };
      },
    };
    await checkServedLog(http, writer.vkey, jsons);
    assert.ok(tiles.tiles.files.size > 0);
    await log.close();
    await app.close();
  });
});

const fetchGetter = (server: Served): Getter => ({
  async get(path) {
    const r = await fetch(`${server.url}${path}`);
    const bytes = new Uint8Array(await r.arrayBuffer());
    return {
      status: r.status,
      text: Buffer.from(bytes).toString('utf8'),
      bytes,
      headers: r.headers,
    };
  },
});

const vkeyOf = (server: Served): string => {
  const line = /^log key: (\S+)$/m.exec(server.stdout())?.[1];
  assert.ok(line, server.stdout());
  return line;
};

describe('the log on the JSON engine (a server on a real port)', () => {
  test('served, kept across restarts, refuses a rewound store and tampered tiles', async () => {
    let server = await startInProcess({ args: ['--quiet', '--log-interval', '50'] });
    const dir = server.dir;
    try {
      const post = (path: string, body: unknown, identity: string) =>
        call(server, 'POST', path, { body, identity });
      const first = await workload(post, 40);
      const vkey = vkeyOf(server);
      await checkServedLog(fetchGetter(server), vkey, first);
      await assert.doesNotReject(server.stop());
      assert.ok(
        existsSync(join(dir, 'cards.json.log', 'checkpoint')),
        'tiles and checkpoint as files',
      );
      assert.ok(existsSync(join(dir, 'cards.json.log', 'tile', 'entries', '000.p', '40')));
      const backup = makeTempDir('cards-log-backup-');
      for (const f of readdirSync(dir))
        if (f.startsWith('cards.json') && statSync(join(dir, f)).isFile())
          copyFileSync(join(dir, f), join(backup, f));

      server = await startInProcess({ dir, args: ['--quiet', '--log-interval', '50'] });
      assert.equal(vkeyOf(server), vkey, 'the same log key and origin after a restart');
      assert.match(server.stdout(), /^log: \S+ \(40 entries/m);
      const more = await workload(post, 20);
      await checkServedLog(fetchGetter(server), vkey, [...first, ...more]);
      await assert.doesNotReject(server.stop());

      // A store restored from the older backup under the newer log: refused, loudly.
      const rewound = makeTempDir('cards-log-rewound-');
      cpSync(dir, rewound, { recursive: true });
      rmSync(join(rewound, 'cards.json'));
      copyFileSync(join(backup, 'cards.json'), join(rewound, 'cards.json'));
      const refused = await runServeToExit(['--port', '0', '--db', join(rewound, 'cards.json')], {
        cwd: rewound,
      });
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /90007/);
      assert.match(
        refused.stderr,
        /holds 40 cards but its transparency log .* signed 60.*rewound/s,
      );

      // A tampered tile (the last bundle) no longer matches the signed checkpoint.
      const tampered = makeTempDir('cards-log-tampered-');
      cpSync(dir, tampered, { recursive: true });
      writeFileSync(
        join(tampered, 'cards.json.log', 'tile', '0', '000.p', '60'),
        Buffer.alloc(60 * 32),
      );
      const refused2 = await runServeToExit(['--port', '0', '--db', join(tampered, 'cards.json')], {
        cwd: tampered,
      });
      assert.notEqual(refused2.code, 0);
      assert.match(refused2.stderr, /does not match its signed checkpoint at size 60/);
    } finally {
      await server.dispose();
    }
  });

  test('--no-log: no log files, the log routes answer 91010', async () => {
    const server = await startInProcess({ args: ['--quiet', '--no-log'] });
    try {
      assert.match(server.stdout(), /^log: off/m);
      const r = await fetch(`${server.url}/log/checkpoint`);
      assert.equal(r.status, 404);
      assert.equal(((await r.json()) as { code: string }).code, '91010');
      assert.ok(!existsSync(join(server.dir, 'cards.json.log')));
    } finally {
      await server.dispose();
    }
  });
});

/** The vkey of the log begun after `epoch` resets, from the base log's vkey (same key). */
function epochVkey(base: string, epoch: number): string {
  const [name = '', , ...rest] = base.split('+'); // base64 may hold '+' too
  const key = rest.join('+');
  const raw = new Uint8Array(Buffer.from(key, 'base64')).subarray(1);
  return formatVerifierKey(epochOrigin(name, epoch), KEY_TYPE_ED25519, raw);
}

/** Resets the registry through the admin API (loopback: no token needed). */
async function resetRegistry(server: Served): Promise<void> {
  const r = await fetch(`${server.url}/_cards/reset`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ confirm: 'reset' }),
  });
  assert.equal(r.status, 200, await r.text());
}

describe('a reset begins a new log; the old one is never rewound', () => {
  test('JSON engine: origin <base>/reset-1 from size 0, kept across a restart', async () => {
    let server = await startInProcess({ args: ['--quiet', '--log-interval', '50'] });
    const dir = server.dir;
    try {
      const post = (path: string, body: unknown, identity: string) =>
        call(server, 'POST', path, { body, identity });
      const base = vkeyOf(server);
      await checkServedLog(fetchGetter(server), base, await workload(post, 12));
      await resetRegistry(server);
      const next = epochVkey(base, 1);
      const info = (await (await fetch(`${server.url}/_cards/info`)).json()) as {
        log: { origin: string; vkey: string; size: number };
      };
      assert.deepEqual(info.log, {
        origin: ed25519Verifier(next).name,
        vkey: next,
        size: 0,
        path: '/log/reset-1/',
      });
      const fresh = await (await fetch(`${server.url}/log/checkpoint`)).text();
      assert.ok(fresh.startsWith(`${ed25519Verifier(next).name}\n0\n`), fresh);
      const after = await workload(post, 9);
      await checkServedLog(fetchGetter(server), next, after);
      await assert.doesNotReject(server.stop());
      server = await startInProcess({ dir, args: ['--quiet', '--log-interval', '50'] });
      assert.equal(vkeyOf(server), next, 'the new log, not the old one, after a restart');
      await checkServedLog(fetchGetter(server), next, [...after, ...(await workload(post, 3))]);
    } finally {
      await server.dispose();
    }
  });
});

describe('each log at its own URLs: nothing read of one answers for another', () => {
  test('a proof of the old log at a size, then the new log at that size: its own proofs and tiles', async () => {
    const server = await startInProcess({ args: ['--quiet', '--log-interval', '50'] });
    try {
      const post = (path: string, body: unknown, identity: string) =>
        call(server, 'POST', path, { body, identity });
      const base = vkeyOf(server);
      const before = await workload(post, 5);
      // Every proof of the old log read at size 5: its tiles of width 5 are what the server read.
      await checkServedLog(fetchGetter(server), base, before);
      const oldTile = `/log/${tilePath({ level: 0, index: 0, width: 5 })}`;
      const oldBytes = (await fetchGetter(server).get(oldTile)).bytes;
      await resetRegistry(server);
      const next = epochVkey(base, 1);
      const after = await workload(post, 5);
      // The new log's proofs at the same size verify against its own tree.
      await checkServedLog(fetchGetter(server), next, after);
      // Its tiles live under its own prefix, named by its origin; the old log's URLs are gone
      // (404, no redirect: a URL served as immutable never names other bytes).
      const info = (await (await fetch(`${server.url}/_cards/info`)).json()) as {
        log: { origin: string; path: string };
      };
      assert.equal(info.log.origin, ed25519Verifier(next).name);
      assert.equal(info.log.path, '/log/reset-1/');
      const newTile = `/log/reset-1/${tilePath({ level: 0, index: 0, width: 5 })}`;
      const served = await fetchGetter(server).get(newTile);
      assert.equal(served.status, 200);
      assert.match(served.headers.get('cache-control') ?? '', /immutable/);
      assert.notDeepEqual(served.bytes, oldBytes, 'another tree, at another URL');
      const gone = await fetchGetter(server).get(oldTile);
      assert.equal(gone.status, 404, 'the old log URL names no tile of the new log');
      const checkpoint = await fetchGetter(server).get('/log/reset-1/checkpoint');
      assert.ok(checkpoint.text.startsWith(`${ed25519Verifier(next).name}\n5\n`), checkpoint.text);
      assert.equal((await fetchGetter(server).get('/log/reset-2/checkpoint')).status, 404);
    } finally {
      await server.dispose();
    }
  });
});

describe('the log on PostgreSQL: one log for every server on the database', () => {
  let pgServer: TestPostgres;
  before(async () => {
    pgServer = await testPostgres();
  });

  test('cards made through two servers are one log, proven through either; reset and restart', async (t) => {
    const store = await freshStoreUrl(pgServer);
    const args = ['--quiet', '--log-interval', '50'];
    let a = await startInProcess({ store, args });
    let b = await startInProcess({ store, args });
    t.after(async () => {
      await a.dispose();
      await b.dispose();
    });
    const vkey = vkeyOf(a);
    assert.equal(vkeyOf(b), vkey, 'one log key and origin, kept in the database');
    assert.match(a.stdout(), /^log: \S+ \(0 entries; tiles in postgres:\/\/.*cards_log_tiles\)/m);
    let turn = 0;
    const post = (path: string, body: unknown, identity: string) =>
      call(turn++ % 2 ? a : b, 'POST', path, { body, identity });
    const jsons = await workload(post, 60);
    await checkServedLog(fetchGetter(a), vkey, jsons);
    await checkServedLog(fetchGetter(b), vkey, jsons);
    await assert.doesNotReject(a.stop());
    await assert.doesNotReject(b.stop());
    a = await startInProcess({ store, args });
    b = await startInProcess({ store, args });
    assert.match(a.stdout(), /^log: \S+ \(60 entries/m, 'read back, not recomputed');
    const more = await workload(post, 10);
    await checkServedLog(fetchGetter(b), vkey, [...jsons, ...more]);
    await resetRegistry(a);
    const next = epochVkey(vkey, 1);
    const after = await workload(post, 8);
    await checkServedLog(fetchGetter(a), next, after);
    await checkServedLog(fetchGetter(b), next, after);
  });

  /**
   * Server a resets the registry and logs one card in the new log while server b, which opened
   * on the first log (one card), looks at the database again only after a minute.
   */
  async function resetBehind(t: { after: (fn: () => Promise<void>) => void }) {
    const store = await freshStoreUrl(pgServer);
    const a = await startInProcess({ store, args: ['--quiet', '--log-interval', '50'] });
    t.after(() => a.dispose());
    const logged = async (origin: string, size: number): Promise<void> => {
      for (let wait = 0; wait < 250; wait++) {
        const lines = (await (await fetch(`${a.url}/log/checkpoint`)).text()).split('\n');
        if (lines[0] === origin && lines[1] === String(size)) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.fail(`a did not publish size ${size} of ${origin}`);
    };
    const vkey = vkeyOf(a);
    const base = vkey.slice(0, vkey.indexOf('+'));
    const before = makeCard('before-reset');
    const first = await call(a, 'POST', '/card/v5', { body: before.raw, identity: 'before-reset' });
    assert.equal(first.status, 201);
    await logged(base, 1);
    const b = await startInProcess({ store, args: ['--quiet', '--log-interval', '60000'] });
    t.after(() => b.dispose());
    await resetRegistry(a);
    const card = makeCard('after-reset');
    const next = await call(a, 'POST', '/card/v5', { body: card.raw, identity: 'after-reset' });
    assert.equal(next.status, 201);
    await logged(`${base}/reset-1`, 1);
    return { b, vkey, before, card };
  }

  test("a reset through another server: the first log's tile URL never answers the new log's tile", async (t) => {
    const { b, before } = await resetBehind(t);
    // Read from b only now: the first log's bytes, or none; never the new log's tile at the
    // first log's URL (served immutable: a cache would keep it).
    const tile = await fetch(`${b.url}/log/${tilePath({ level: 0, index: 0, width: 1 })}`);
    const bytes = new Uint8Array(await tile.arrayBuffer());
    if (tile.status === 200) assert.deepEqual(bytes, leafHash(before.snapshot.bytes));
    else assert.equal(tile.status, 404);
  });

  test('a reset through another server: a card of the new log is proven in its own log, never the old one', async (t) => {
    const { b, vkey, card } = await resetBehind(t);
    // b still publishes the first log, whose entry 0 is another card: the proof it answers is
    // one in the log holding this card, under that log's key.
    const proof = await fetch(`${b.url}/log/proof/${card.id}`);
    const text = await proof.text();
    assert.equal(proof.status, 200, text);
    const verifier = ed25519Verifier(epochVkey(vkey, 1));
    assert.doesNotThrow(
      () =>
        verifyTlogProof(text, card.snapshot.bytes, { logKeys: [verifier], origin: verifier.name }),
      text,
    );
  });

  test('kill -9 of one of two servers under load: the survivor logs every acknowledged card', async (t) => {
    const store = await freshStoreUrl(pgServer);
    const args = ['--quiet', '--log-interval', '50'];
    const a = await startServer({ store, args });
    const b = await startInProcess({ store, args });
    t.after(async () => {
      await a.dispose();
      await b.dispose();
    });
    const vkey = vkeyOf(b);
    const acked: string[] = [];
    let killed = false;
    const writer = async (n: number): Promise<void> => {
      for (let i = 0; i < 40; i++) {
        const target = !killed && (i + n) % 2 ? a : b;
        const card = makeCard(`crash${n}`);
        const reply = await call(target, 'POST', '/card/v5', {
          body: card.raw,
          identity: `crash${n}`,
        }).catch(() => undefined);
        if (reply?.status === 201) acked.push(reply.text);
        if (n === 0 && i === 15) {
          killed = true;
          await a.kill();
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(writer));
    // The whole registry, in insertion order (cut-off requests may have stored cards too): the
    // survivor's log holds exactly those, in that order, every acknowledged one among them.
    const dump = await (await fetch(`${b.url}/_cards/export`)).text();
    const stored = dump.split('\n').filter(Boolean);
    const ids = new Set(stored.map((line) => (JSON.parse(line) as { id?: string }).id ?? line));
    const { cardIdOf } = await import('../../src/core/card-id.js');
    for (const json of acked)
      assert.ok(ids.has(cardIdOf(snapshotOf(json))), 'acknowledged is stored');
    assert.ok(stored.length >= acked.length && acked.length > 40);
    await checkServedLog(fetchGetter(b), vkey, stored);
  });
});
