/**
 * Crash safety: a real `cards serve` child process, 16 concurrent clients creating,
 * replacing and revoking cards, `kill -9` at a random moment, restart on the same store; and
 * again, 12 times, plus kills during start-up (while the journal is being folded into the
 * file). After every restart: the store loads; every card whose request got a 2xx is there,
 * byte-identical, with a valid service signature; chain states (superseded, revoked) agree
 * with the acknowledged operations. Requests cut off by the kill may or may not have landed,
 * but never half: a chain they touched is whole or absent from search. The transparency log
 * agrees with the registry after every restart: its size reaches the card count, its
 * entries are served cards, every acknowledged card has a proof that verifies, and after the
 * final clean stop its entries are the store file's cards in order.
 *
 * Seeded (RELIABILITY_SEED to replay another run), bounded: about 10 s.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { test } from 'node:test';
import { cardIdOf } from '../../src/core/card-id.js';
import { decodeBase64 } from '../../src/core/encoding.js';
import { openCheckpoint } from '../../src/log/checkpoint.js';
import { decodeEntryBundle } from '../../src/log/entry-bundle.js';
import { ed25519Verifier } from '../../src/log/note-keys.js';
import { tilePath, tileWidth } from '../../src/log/tile-path.js';
import { verifyTlogProof } from '../../src/log/tlog-proof.js';
import { CARDS_BIN, hermeticEnv, startServer, type TestServer } from '../helpers/server.js';
import { makeCard, makeRevocation } from '../http/card-kit.js';
import { assertServiceSigned, call, seededRandom, sleep } from './kit.js';

const SEED = Number(process.env.RELIABILITY_SEED ?? 6_2024);
const CLIENTS = 16;
const WORKLOAD_KILLS = 12;
const START_UP_KILLS = 3;
const PREFIXES = ['/card/v5', '/v5/card', '/card'] as const;

interface ChainModel {
  readonly identity: string;
  /** Acknowledged cards of the chain, in order. */
  readonly ids: string[];
  /** live: every operation on it was acknowledged; uncertain: the last one got no answer. */
  state: 'live' | 'revoked' | 'uncertain';
}

interface Model {
  /** Acknowledged cards: id → the response body (the stored card's JSON). */
  readonly acked: Map<string, string>;
  /** Ids some acknowledged card names as previous_card_id. */
  readonly superseded: Set<string>;
  readonly chains: ChainModel[];
  /** Anything a client saw that must not happen (a 4xx or 5xx, an error before the kill). */
  readonly problems: string[];
}

const idOfCardJson = (text: string): string =>
  cardIdOf(
    decodeBase64((JSON.parse(text) as { content_snapshot: string }).content_snapshot) ??
      new Uint8Array(),
  );

/** One client: its own identity, its own chains; stops at the first request the kill cuts. */
async function runClient(
  server: TestServer,
  identity: string,
  model: Model,
  random: () => number,
  isKilled: () => boolean,
): Promise<number> {
  let chain: ChainModel | undefined;
  let done = 0;
  for (;;) {
    const roll = random();
    const path = PREFIXES[Math.floor(random() * PREFIXES.length)] as string;
    const last = chain?.ids.at(-1);
    let request: { method: string; path: string; body?: unknown; raw?: string };
    let newId: string | undefined;
    let fresh = false;
    if (!chain || chain.state !== 'live' || last === undefined || roll < 0.3) {
      const card = makeCard(identity);
      request = { method: 'POST', path, body: card.raw };
      newId = card.id;
      fresh = true;
    } else if (roll < 0.8) {
      const card = makeCard(identity, { previousCardId: last });
      request = { method: 'POST', path, body: card.raw };
      newId = card.id;
    } else if (roll < 0.9) {
      request = { method: 'POST', path: `${path}/actions/revoke/${last}`, raw: '{}' };
    } else {
      const revocation = makeRevocation(identity, last);
      request = { method: 'POST', path: `${path}/actions/revoke`, body: revocation.raw };
      newId = revocation.id;
    }
    const target: ChainModel = fresh || !chain ? { identity, ids: [], state: 'uncertain' } : chain;
    if (fresh) model.chains.push(target);
    let reply;
    try {
      reply = await call(server, request.method, request.path, { ...request, identity });
    } catch (err) {
      target.state = 'uncertain';
      if (!isKilled()) model.problems.push(`${identity}: ${String(err)} before the kill`);
      return done;
    }
    if (reply.status >= 300) {
      target.state = 'uncertain';
      model.problems.push(`${identity} ${request.path}: ${reply.status} ${reply.text}`);
      return done;
    }
    const id = newId ?? idOfCardJson(reply.text);
    model.acked.set(id, reply.text);
    if (last !== undefined && !fresh) model.superseded.add(last);
    target.ids.push(id);
    target.state = request.path.includes('/actions/revoke') ? 'revoked' : 'live';
    chain = target;
    done++;
  }
}

/** Checks the restarted server against the model; GETs every card acknowledged since `from`. */
async function verify(server: TestServer, model: Model, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    const got = await call(server, 'GET', `/card/v5/${id}`);
    assert.equal(got.status, 200, `acknowledged card ${id} is there (seed ${SEED})`);
    assert.equal(got.text, model.acked.get(id), `card ${id} byte-identical`);
    assertServiceSigned(got.text, server.serviceKey, id);
    if (model.superseded.has(id))
      assert.equal(got.headers.get('x-service-is-superseeded'), 'true', `${id} superseded`);
  }
  for (let c = 0; c < CLIENTS; c++) {
    const identity = `user${c}`;
    const reply = await call(server, 'POST', '/card/v5/actions/search', {
      body: { identity },
      identity,
    });
    assert.equal(reply.status, 200);
    const found = (JSON.parse(reply.text) as unknown[]).map((card) =>
      idOfCardJson(JSON.stringify(card)),
    );
    const position = new Map(found.map((id, i) => [id, i]));
    for (const chain of model.chains.filter((ch) => ch.identity === identity)) {
      const at = chain.ids.map((id) => position.get(id));
      const present = at.filter((i) => i !== undefined).length;
      if (chain.state === 'revoked') {
        assert.equal(present, 0, `${identity}: a revoked chain is left out of search`);
      } else if (chain.state === 'live' || present > 0) {
        // A live chain is listed whole; an uncertain one is whole or absent (its revocation
        // may have landed), never partial.
        assert.equal(present, chain.ids.length, `${identity}: chain listed whole`);
        at.forEach((i, k) => k > 0 && assert.equal(i, (at[k - 1] as number) + 1, 'in order'));
      }
    }
  }
}

/** The log's entries as card ids, once the checkpoint covers every stored card. */
async function logIds(server: TestServer): Promise<string[]> {
  const verifier = ed25519Verifier(/^log key: (\S+)$/m.exec(server.stdout())?.[1] ?? '');
  const health = JSON.parse((await call(server, 'GET', '/health')).text) as { cards: number };
  let size = -1;
  for (let wait = 0; wait < 200 && size !== health.cards; wait++) {
    if (wait > 0) await sleep(25);
    const text = (await call(server, 'GET', '/log/checkpoint', { identity: null })).text;
    size = openCheckpoint(text, [verifier], verifier.name).checkpoint.size;
  }
  assert.equal(size, health.cards, 'the log holds every stored card');
  const ids: string[] = [];
  for (let index = 0; index * 256 < size; index++) {
    const tile = { level: 'entries' as const, index, width: tileWidth(0, index, size) };
    const res = await fetch(`${server.url}/log/${tilePath(tile)}`);
    const entries = decodeEntryBundle(new Uint8Array(await res.arrayBuffer())) ?? [];
    ids.push(...entries.map((entry) => cardIdOf(entry)));
  }
  assert.equal(ids.length, size);
  return ids;
}

/** Log and registry agree; every acknowledged card in `ids` has a proof that verifies. */
async function verifyLog(
  server: TestServer,
  model: Model,
  ids: readonly string[],
  seen: Set<string>,
) {
  const entries = await logIds(server);
  assert.equal(new Set(entries).size, entries.length, 'no card twice in the log');
  const verifier = ed25519Verifier(/^log key: (\S+)$/m.exec(server.stdout())?.[1] ?? '');
  for (const id of entries.filter((e) => !seen.has(e))) {
    assert.equal(
      (await call(server, 'GET', `/card/v5/${id}`)).status,
      200,
      `entry ${id} is a card`,
    );
    seen.add(id);
  }
  const index = new Map(entries.map((id, i) => [id, i]));
  for (const id of ids) {
    const proof = await call(server, 'GET', `/log/proof/${id}`, { identity: null });
    assert.equal(proof.status, 200, `acknowledged card ${id} has a proof (seed ${SEED})`);
    const entry =
      decodeBase64(JSON.parse(model.acked.get(id) ?? '{}').content_snapshot) ?? new Uint8Array();
    const verified = verifyTlogProof(proof.text, entry, {
      logKeys: [verifier],
      origin: verifier.name,
    });
    assert.equal(verified.index, index.get(id), `${id} is at its log index`);
  }
  return entries;
}

/** Runs `check`; a failure also says the round, whether the server still runs, and its stderr. */
async function whatTheServerSaid(
  server: TestServer,
  round: number,
  check: () => Promise<void>,
): Promise<void> {
  try {
    await check();
  } catch (err) {
    const { exitCode, signalCode } = server.proc;
    const state =
      exitCode === null && signalCode === null
        ? 'still running'
        : `exited (${exitCode ?? signalCode})`;
    throw new Error(
      `after the restart of round ${round} (seed ${SEED}; the server ${state}): ${String(err)}\nits stderr:\n${server.stderr()}`,
      { cause: err },
    );
  }
}

/** Spawns `cards serve` on the store and SIGKILLs it after `ms`, whatever it is doing. */
async function killDuringStartUp(dir: string, ms: number): Promise<void> {
  const proc = spawn(
    process.execPath,
    [
      CARDS_BIN,
      'serve',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--db',
      `${dir}/cards.json`,
      '--quiet',
    ],
    { cwd: dir, env: hermeticEnv(), stdio: 'ignore' },
  );
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  await sleep(ms);
  proc.kill('SIGKILL');
  await exited;
}

test(`crash safety: kill -9 at ${WORKLOAD_KILLS} random moments under 16 writers, and during start-up`, async (t) => {
  const random = seededRandom(SEED);
  const model: Model = { acked: new Map(), superseded: new Set(), chains: [], problems: [] };
  let server = await startServer({ args: ['--quiet'] });
  const dir = server.dir;
  t.after(async () => {
    await server.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  let verifiedUpTo = 0;
  const seenInLog = new Set<string>();
  const startUpKillRounds = new Set([3, 7, 10]);
  let operations = 0;

  for (let round = 0; round < WORKLOAD_KILLS; round++) {
    let killed = false;
    const clients = Array.from({ length: CLIENTS }, (_, c) =>
      runClient(server, `user${c}`, model, seededRandom(SEED + round * 100 + c), () => killed),
    );
    // A random moment once the round has made progress (4 to 19 acknowledged cards, then up to
    // 200 ms): a slow host gives the writers fewer cards per second, never a round without any.
    const progress = model.acked.size + CLIENTS / 4 + Math.floor(random() * 16);
    for (const start = Date.now(); model.acked.size < progress; await sleep(5))
      assert.ok(Date.now() - start < 60_000, `no progress in a minute (seed ${SEED})`);
    await sleep(Math.floor(random() * 200));
    killed = true;
    const result = await server.kill();
    assert.equal(result.signal, 'SIGKILL');
    operations += (await Promise.all(clients)).reduce((a, b) => a + b, 0);
    assert.deepEqual(model.problems, [], `seed ${SEED}`);

    if (startUpKillRounds.has(round))
      await killDuringStartUp(dir, 100 + Math.floor(random() * 400));
    server = await startServer({ dir, args: ['--quiet'] });
    const ids = [...model.acked.keys()];
    await whatTheServerSaid(server, round, async () => {
      await verify(server, model, ids.slice(verifiedUpTo));
      await verifyLog(server, model, ids.slice(verifiedUpTo), seenInLog);
    });
    verifiedUpTo = ids.length;
  }
  assert.ok(operations >= CLIENTS * 4, `enough acknowledged operations (${operations})`);
  assert.ok(
    model.chains.some((c) => c.state === 'revoked'),
    'some chains were revoked',
  );
  assert.ok(model.superseded.size > 0, 'some cards were replaced');

  // Finally every acknowledged card, then a clean stop folds the journal into the file.
  await verify(server, model, [...model.acked.keys()]);
  const entries = await verifyLog(server, model, [], seenInLog);
  const stopped = await server.stop();
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.ok(!existsSync(server.paths.journal), 'journal folded in');
  const file = JSON.parse(readFileSync(server.paths.store, 'utf8')) as {
    cards: { id: string; content_snapshot: string; signatures: unknown[] }[];
  };
  const inFile = new Map(
    file.cards.map((c) => [
      c.id,
      JSON.stringify({ content_snapshot: c.content_snapshot, signatures: c.signatures }),
    ]),
  );
  for (const [id, text] of model.acked) assert.equal(inFile.get(id), text, `${id} in the file`);
  assert.deepEqual(
    entries,
    file.cards.map((c) => c.id),
    "the log's entries are the store's cards, in order",
  );
  t.diagnostic(
    `seed ${SEED}: ${model.acked.size} acknowledged cards, ${model.chains.length} chains, ${WORKLOAD_KILLS + START_UP_KILLS} kills`,
  );
});
