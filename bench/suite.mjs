// The whole benchmark: prepares stores, cards and tokens, then runs every measure once per
// round. Ratios are computed within a round (both sides measured seconds apart, on the same
// machine state) and the medians over rounds are reported, with what else the machine was
// doing (load average, CPU steal, disk latency).
import { cpus } from 'node:os';
import { measureCrypto } from './crypto.mjs';
import { measureSeed, measureVersion, writeSeedFile } from './cli.mjs';
import {
  createCursor,
  measureCreate,
  measureReads,
  measureSequentialCreate,
} from './cards-server.mjs';
import { measureJsonServerPost } from './json-server.mjs';
import { createPool, mintTokens, storeIdentities } from './lib/cards.mjs';
import { measureFsync } from './lib/disk.mjs';
import { watchMachine } from './lib/machine.mjs';
import { median } from './lib/load.mjs';
import { memoryOf, startCards } from './lib/servers.mjs';
import { BUILDS, startupMedians, startupRound } from './startup.mjs';
import {
  appKeyOf,
  buildStore,
  copyStore,
  jsonServerDb,
  makeKeysDir,
  removeTempDirs,
  storeIds,
  tempDir,
} from './lib/stores.mjs';

export const CONFIGS = {
  full: {
    rounds: 3,
    storeSize: 100_000,
    smallStore: 1_000,
    seconds: 3,
    warmSeconds: 1,
    createWarm: 2_000,
    jsonServerSeconds: 3,
    sequential: 300,
    sequentialWarm: 300,
    versionSpawns: 10,
    seedCount: 10_000,
  },
  quick: {
    rounds: 3,
    storeSize: 20_000,
    smallStore: 1_000,
    seconds: 1,
    warmSeconds: 1,
    createWarm: 2_000,
    jsonServerSeconds: 3, // the comparison is a 3 s run, even in a quick pass
    sequential: 100,
    sequentialWarm: 100,
    versionSpawns: 5,
    seedCount: 2_000,
  },
};

const log = (line) => process.stderr.write(`${line}\n`);

async function round(config, prepared, r) {
  const { keysDir, small, big, cursor, sequentialPool, bodies, readToken } = prepared;
  const { ids, identities, seedFile, bigDb } = prepared;
  const { seconds, warmSeconds } = config;
  const warm = config.createWarm;
  const sequentialOptions = { warm: config.sequentialWarm };
  const machine = watchMachine();
  const out = {};

  // Start-up alone on the idle machine, and B_ROOT's build's too when set (startup.mjs).
  log(`round ${r}: start-up with ${config.storeSize} cards (${Object.keys(BUILDS).join(' and ')})`);
  out.startup = await startupRound(big, r);

  // The three servers run side by side (idle unless measured), so that each pair of figures a
  // ratio compares is measured back to back.
  log(
    `round ${r}: starting servers on an empty store, ${config.smallStore} and ${config.storeSize} cards`,
  );
  const empty = await startCards(copyStore(keysDir), ['--quiet']);
  const oneK = await startCards(copyStore(small), ['--quiet']);
  const full = await startCards(copyStore(big), ['--quiet']);
  try {
    out.listeningMs = full.listeningMs;
    out.memoryAtStart = memoryOf(full.proc.pid);

    log(`round ${r}: crypto bound, disk latency, create into the empty store`);
    out.crypto = measureCrypto(1, { noble: false });
    out.fsyncMs = await measureFsync(tempDir());
    cursor.reset();
    out.createEmpty = await measureCreate(empty, cursor, { seconds, warm });

    // Both sides of the latency ratio start equally warm: neither has served a create yet.
    log(`round ${r}: one client creating, ${config.smallStore} then ${config.storeSize} stored`);
    out.sequentialSmall = await measureSequentialCreate(oneK, sequentialPool, sequentialOptions);
    out.sequentialBig = await measureSequentialCreate(full, sequentialPool, sequentialOptions);

    log(`round ${r}: create into the full store`);
    cursor.reset();
    out.createBig = await measureCreate(full, cursor, { seconds, warm });

    log(`round ${r}: get and search`);
    out.reads = await measureReads(full, {
      ids,
      identities,
      token: readToken,
      seconds,
      warmSeconds,
    });
    out.memoryAtEnd = memoryOf(full.proc.pid);
  } finally {
    await Promise.all([empty.stop(), oneK.stop(), full.stop()]);
  }

  log(`round ${r}: json-server POST, empty and ${config.storeSize} records`);
  // No warm-up: the comparison is a 3 s run into a store that starts empty.
  const jsonServerRun = { seconds: config.jsonServerSeconds, warmSeconds: 0 };
  out.jsonServerEmpty = await measureJsonServerPost(jsonServerDb(), bodies, jsonServerRun);
  out.jsonServerBig = await measureJsonServerPost(bigDb(), bodies, jsonServerRun);

  log(`round ${r}: cards --version, cards seed of ${config.seedCount}`);
  out.versionMs = await measureVersion(tempDir(), config.versionSpawns);
  const seedDir = copyStore(keysDir);
  // The target is 15 s per 10,000 cards; a run four times as long is stopped and reported.
  const seedLimitMs = (4 * 15_000 * config.seedCount) / 10_000;
  const seedServer = await startCards(seedDir, ['--quiet']);
  const seed = await measureSeed(seedServer, seedDir, seedFile, seedLimitMs).finally(() =>
    seedServer.stop(),
  );
  out.seedMs = seed.ms;
  if (seed.error) {
    out.seedError = seed.error;
    log(`round ${r}: cards seed failed: ${seed.error}`);
  }
  Object.assign(out, machine.stop());
  return out;
}

async function prepare(config) {
  let started = performance.now();
  const keysDir = await makeKeysDir();
  log(`preparing: a store of ${config.smallStore} cards`);
  const small = await buildStore(keysDir, config.smallStore);
  log(`preparing: a store of ${config.storeSize} cards (through the registry, about 30 s)`);
  const big = await buildStore(keysDir, config.storeSize);
  const buildSeconds = (performance.now() - started) / 1000;

  started = performance.now();
  // Creates cannot outrun the crypto bound (the server verifies and signs on one thread), so a
  // pool of the warm-up plus bound × run cards, with room to spare, always lasts; the floor
  // keeps a bound measured at a busy moment from leaving the pool short later on.
  const { createBound } = measureCrypto(1, { noble: false });
  const ceiling = Math.max(createBound, 8_000);
  const poolSize = config.createWarm + Math.ceil(ceiling * config.seconds * 1.3);
  log(`preparing: ${poolSize} signed cards and tokens for 1,000 identities`);
  const appKey = appKeyOf(keysDir);
  const names = (n, prefix) => Array.from({ length: n }, (_, k) => `${prefix}-${k}@example.com`);
  const pool = await createPool(appKey, poolSize, names(1000, 'bench'));
  const sequentialPool = await createPool(
    appKey,
    config.sequentialWarm + config.sequential,
    names(10, 'one-client'),
  );
  const [readToken] = (await mintTokens(appKeyOf(keysDir), ['reader@example.com'])).values();
  const bigDbTemplate = jsonServerDb(big);
  const seedFile = writeSeedFile(tempDir(), config.seedCount);
  const prepareSeconds = (performance.now() - started) / 1000;
  return {
    keysDir,
    small,
    big,
    cursor: createCursor(pool),
    sequentialPool,
    bodies: pool.slice(0, 5000).map((request) => request.body),
    readToken,
    ids: storeIds(big),
    identities: storeIdentities(config.storeSize),
    seedFile,
    bigDb: () => ({ dir: copyStore(bigDbTemplate.dir), file: 'db.json' }),
    buildSeconds,
    prepareSeconds,
  };
}

/** Runs the suite; returns the machine, the configuration, every round and the medians. */
export async function runSuite(config) {
  const started = performance.now();
  try {
    const prepared = await prepare(config);
    const rounds = [];
    for (let r = 1; r <= config.rounds; r++) rounds.push(await round(config, prepared, r));
    return {
      machine: {
        nproc: cpus().length,
        cpu: cpus()[0]?.model ?? 'unknown',
        node: process.version,
      },
      config,
      buildSeconds: prepared.buildSeconds,
      prepareSeconds: prepared.prepareSeconds,
      rounds,
      summary: summarise(rounds),
      totalSeconds: (performance.now() - started) / 1000,
    };
  } finally {
    removeTempDirs();
  }
}

/** Medians over rounds; every ratio is taken within its round first. */
export function summarise(rounds) {
  const m = (fn) => median(rounds.map(fn));
  return {
    createBound: m((r) => r.crypto.createBound),
    createEmpty: m((r) => r.createEmpty.rps),
    createEmptyOfBound: m((r) => r.createEmpty.rps / r.crypto.createBound),
    createBig: m((r) => r.createBig.rps),
    createBigOfEmpty: m((r) => r.createBig.rps / r.createEmpty.rps),
    sequentialSmallMs: m((r) => r.sequentialSmall.medianMs),
    sequentialBigMs: m((r) => r.sequentialBig.medianMs),
    sequentialRatio: m((r) => r.sequentialBig.medianMs / r.sequentialSmall.medianMs),
    get: m((r) => r.reads.get.rps),
    getP99: m((r) => r.reads.get.p99),
    searchOne: m((r) => r.reads.searchOne.rps),
    searchOneP99: m((r) => r.reads.searchOne.p99),
    searchFifty: m((r) => r.reads.searchFifty.rps),
    searchFiftyP99: m((r) => r.reads.searchFifty.p99),
    listeningMs: m((r) => r.listeningMs),
    startup: startupMedians(rounds.map((r) => r.startup)),
    rssMB: m((r) => r.memoryAtStart.rssMB),
    peakMB: m((r) => r.memoryAtEnd.peakMB),
    versionMs: m((r) => r.versionMs),
    seedSeconds: median(rounds.filter((r) => !r.seedError).map((r) => r.seedMs / 1000)),
    seedFailures: rounds.filter((r) => r.seedError).length,
    jsonServerEmpty: m((r) => r.jsonServerEmpty.rps),
    jsonServerBig: m((r) => r.jsonServerBig.rps),
    vsJsonServerEmpty: m((r) => r.createBig.rps / r.jsonServerEmpty.rps),
    vsJsonServerBig: m((r) => r.createBig.rps / r.jsonServerBig.rps),
    fsyncMs: m((r) => r.fsyncMs),
    steal: m((r) => r.steal),
    loadAverage: [
      Math.min(...rounds.flatMap((r) => [r.loadBefore, r.loadAfter])),
      Math.max(...rounds.flatMap((r) => [r.loadBefore, r.loadAfter])),
    ],
    failures: rounds.reduce(
      (n, r) =>
        n +
        r.createEmpty.failed +
        r.createBig.failed +
        r.sequentialSmall.failed +
        r.sequentialBig.failed +
        Object.values(r.reads).reduce((k, x) => k + x.failed, 0),
      0,
    ),
  };
}
