// Bench stores. Every store of a bench run shares one service key and one app key (so tokens
// are minted once): `keysDir` holds just the two key files, which is also what an empty store is.
// A store of N cards is made once per bench run through the server's own modules (JsonStore +
// Registry: every card passes the registry's rules, is signed with the service key and made
// durable), then copied into a fresh folder for each server that needs it.
import { cpSync, linkSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonStore } from '../../dist/src/store/json/json-store.js';
import { fileHome } from '../../dist/src/server/file-home.js';
import { loadOrCreatePrivateKey } from '../../dist/src/io/key-files.js';
import { createRegistry } from '../../dist/src/registry/registry.js';
import { storeWaves } from './cards.mjs';

const dirs = [];

export function tempDir(prefix = 'cards-bench-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** Removes every folder this module made. */
export function removeTempDirs() {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A folder holding a service key and an app key, as `cards serve` makes them on first start. */
export async function makeKeysDir() {
  const dir = tempDir('cards-bench-keys-');
  const paths = fileHome(join(dir, 'cards.json'));
  await loadOrCreatePrivateKey(paths.serviceKey);
  await loadOrCreatePrivateKey(paths.appKey);
  // Builds from before the companions kept the store's whole name (0020ee9 and older) look for
  // cards.service-key.pem and cards.app-key.pem: the same keys under those names too, so
  // BENCH_CARDS_BIN can measure them. This build reads its own names, which exist.
  linkSync(paths.serviceKey, join(dir, 'cards.service-key.pem'));
  linkSync(paths.appKey, join(dir, 'cards.app-key.pem'));
  return dir;
}

/** Card ids of a store folder's file. */
export const storeIds = (dir) =>
  JSON.parse(readFileSync(join(dir, 'cards.json'), 'utf8')).cards.map((card) => card.id);

/** The app key file of a store folder (tokens are signed with it). */
export const appKeyOf = (dir) => fileHome(join(dir, 'cards.json')).appKey;

/** The service key file of a store folder (what a server beside it signs with). */
export const serviceKeyOf = (dir) => fileHome(join(dir, 'cards.json')).serviceKey;

/** A copy of a store folder (store file and companion keys) for one server. */
export function copyStore(dir) {
  const copy = tempDir();
  cpSync(dir, copy, { recursive: true });
  return copy;
}

/** Builds a store of `count` cards with the keys of `keysDir`; returns its folder. */
export async function buildStore(keysDir, count) {
  const dir = copyStore(keysDir);
  const store = await JsonStore.open({ path: join(dir, 'cards.json') });
  const serviceKey = await loadOrCreatePrivateKey(fileHome(store.location).serviceKey);
  const registry = createRegistry({ store, serviceKey: serviceKey.key, signer: 'service' });
  for (const wave of storeWaves(count)) {
    // Creates in flight together share one journal write (group commit).
    for (let start = 0; start < wave.length; start += 1000)
      await Promise.all(
        wave
          .slice(start, start + 1000)
          .map((card) => registry.createCard(JSON.parse(card.body), card.identity)),
      );
  }
  await registry.close();
  return dir;
}

/**
 * A json-server 0.17 database holding the cards of a store folder as records of a `cards`
 * collection with numeric ids 1…N (what POSTing them into an empty json-server makes).
 */
export function jsonServerDb(storeDir) {
  const dir = tempDir('cards-bench-json-server-');
  const file = join(dir, 'db.json');
  const cards = storeDir
    ? JSON.parse(readFileSync(join(storeDir, 'cards.json'), 'utf8')).cards.map((card, i) => ({
        content_snapshot: card.content_snapshot,
        signatures: card.signatures,
        id: i + 1,
      }))
    : [];
  writeFileSync(file, JSON.stringify({ cards }, null, 2));
  return { dir, file };
}
