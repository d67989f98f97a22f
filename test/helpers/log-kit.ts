/**
 * Builds test logs with the real appender and tiles, runs the Go oracle (test/oracle), and makes a
 * logged memory registry for apps under test.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMPTY_EDGE, appendEntries, edgeRoot, type LogEdge } from '../../src/log/append.js';
import { MemoryTiles } from '../../src/log/memory-tiles.js';
import { TileHashReader } from '../../src/log/tile-hashes.js';
import { PROFILES } from '../../src/core/profile.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { createAuthenticator } from '../../src/http/auth.js';
import { LogWriter } from '../../src/log/log-writer.js';
import { MemoryTileStore } from '../../src/log/tile-store.js';
import { CardLog } from '../../src/registry/card-log.js';
import { createRegistry } from '../../src/registry/registry.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';

/** Entry i: "cards log entry <i>" repeated (i mod 7)+1 times, as tlog-oracle.go builds it. */
export const entry = (i: number): Uint8Array =>
  new TextEncoder().encode(`cards log entry ${i}`.repeat((i % 7) + 1));

export interface TestLog {
  tiles: MemoryTiles;
  reader: TileHashReader;
  edge: LogEdge;
  /** Root at every size in `checkpoints`, from the appender's edge. */
  roots: Map<number, Uint8Array>;
}

/** Appends entries 0… in batches that end at every size of `checkpoints` (and in between). */
export function buildLog(checkpoints: readonly number[], batch = 1000): TestLog {
  const tiles = new MemoryTiles();
  let edge = EMPTY_EDGE;
  const roots = new Map<number, Uint8Array>();
  for (const target of [...new Set(checkpoints)].sort((a, b) => a - b)) {
    while (edge.size < target) {
      const n = Math.min(batch, target - edge.size);
      const batchEntries = Array.from({ length: n }, (_, k) => entry(edge.size + k));
      const result = appendEntries(edge, batchEntries);
      tiles.write(result.tiles);
      edge = result.edge;
    }
    roots.set(target, edgeRoot(edge));
  }
  return { tiles, reader: new TileHashReader(tiles), edge, roots };
}

const GO_ENV = {
  GO111MODULE: 'off',
  GOPATH: '/usr/share/gocode',
  GOFLAGS: '',
  GOTOOLCHAIN: 'local',
};

/**
 * Builds test/oracle/tlog-oracle.go against Debian's golang-golang-x-mod-dev (GOPATH mode, a
 * temporary build cache). Returns undefined when Go or the package is absent; CI installs both
 * (.ci/run), and there the test refuses to skip.
 */
export function buildGoOracle():
  { run: (job: object) => unknown; dispose: () => void } | undefined {
  const probe = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (probe.status !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'cards-oracle-'));
  const env = { ...process.env, ...GO_ENV, GOCACHE: join(dir, 'cache') };
  const source = new URL('../../../test/oracle/tlog-oracle.go', import.meta.url).pathname;
  const binary = join(dir, 'tlog-oracle');
  const built = spawnSync('go', ['build', '-o', binary, source], { env, encoding: 'utf8' });
  if (built.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    if (/cannot find package/.test(built.stderr)) return undefined;
    throw new Error(`go build of the oracle failed: ${built.stderr}`);
  }
  return {
    run: (job) =>
      JSON.parse(
        execFileSync(binary, [], {
          input: JSON.stringify(job),
          encoding: 'utf8',
          maxBuffer: 256 << 20,
        }),
      ) as unknown,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A registry on the memory engine whose log (memory tiles, a fresh log key) follows it, with an
 * authenticator trusting `appKey` under the service profile: what an app over a logged memory
 * registry needs (createApp({ registry, profile, auth, log })).
 */
export async function loggedMemoryRegistry(origin: string, intervalMs: number) {
  const profile = PROFILES.service;
  const appKey = generatePrivateKey();
  const store = new MemoryStore();
  const tiles = new MemoryTileStore();
  const writer = await LogWriter.open({ tiles, origin, key: generatePrivateKey() });
  const log = await CardLog.open({ store, writer, intervalMs });
  const registry = createRegistry({
    store,
    serviceKey: generatePrivateKey(),
    signer: profile.signer,
    onInsert: () => log.notify(),
  });
  const auth = createAuthenticator({ keys: [{ key: appKey.publicKey }], scheme: profile.scheme });
  return { profile, appKey, store, tiles, writer, log, registry, auth };
}
