/**
 * The JSON engine: a store file a person can read (store-file.ts) with its journal (json-store.ts),
 * and beside it, named after it (paths.ts), everything else the server keeps: one file per secret
 * (0600, made whole or not at all, never replaced), the log's tiles and checkpoint as plain files
 * (file-tiles.ts), and the lock that lets one server at a time use the store (lock.ts).
 */
import { existsSync } from 'node:fs';
import { mkdir, rm, rmdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isStoreUrl } from '../defaults.js';
import { FOLDER_MODE } from '../../io/fs-durable.js';
import { keepPrivateFile } from '../../io/private-file.js';
import type { Engine, EngineKind, EngineOptions, SecretKeeper, SecretName } from '../engine.js';
import { importInOrder } from '../import-cards.js';
import { FileTiles } from './file-tiles.js';
import { JsonStore } from './json-store.js';
import { KeyknoxFile } from './keyknox-file.js';
import { acquireLock } from './lock.js';
import { checkCompanions, storeCompanions } from './paths.js';

/** Any `scheme://` is a URL (of another engine, or of none), never a store file. */
export const json: EngineKind = {
  name: 'json',
  targets: 'a JSON store file (./cards.json)',
  matches: (target) => !isStoreUrl(target),
  open: (target, options) => openJsonEngine(target, options),
};

/**
 * Takes the store's lock (STORE_LOCKED when another server holds it), then opens the store; a
 * store that cannot be opened releases the lock again, so a refusal leaves no lock behind.
 */
async function openJsonEngine(path: string, options: EngineOptions = {}): Promise<Engine> {
  const files = storeCompanions(path);
  // A store that is, or links to, one of its companions is refused before anything is made.
  checkCompanions(files);
  const folder = dirname(files.store);
  const madeFolder = await mkdir(folder, { recursive: true, mode: FOLDER_MODE });
  const created = !existsSync(files.store);
  const lock = await acquireLock(files.lock, files.store);
  const warn = options.onWarning ?? (() => undefined);
  /** What this open made besides the store: removed again by discard. */
  const made = [files.logDir, files.logSigned, files.keyknox].filter((file) => !existsSync(file));
  let cards: JsonStore;
  let keyknox: KeyknoxFile;
  try {
    cards = await JsonStore.open({
      path: files.store,
      ...(options.compactBytes !== undefined && { compactBytes: options.compactBytes }),
      ...(options.onWarning && { onWarning: options.onWarning }),
    });
  } catch (err) {
    await lock.release();
    throw err;
  }
  try {
    keyknox = await KeyknoxFile.open(files.keyknox, warn);
  } catch (err) {
    await cards.close().catch(() => undefined);
    await lock.release();
    throw err;
  }
  const close = async (): Promise<void> => {
    try {
      await Promise.all([cards.close(), keyknox.close()]);
    } finally {
      // A lock left behind names a dead pid and is taken over: never mask an error above.
      await lock
        .release()
        .catch((err: Error) => warn(`Cannot remove the lock ${files.lock}: ${err.message}`));
    }
  };
  return {
    name: 'json',
    durable: true,
    description: files.store,
    cards,
    keyknox,
    secrets: fileSecrets(files.secrets, made),
    tiles: new FileTiles(files.logDir, files.logSigned),
    importCards: (source) => importInOrder(cards, source),
    close,
    async discard() {
      if (!created) {
        await close();
        for (const file of made) await rm(file, { force: true, recursive: true });
        return;
      }
      // Removed under the lock, so no other server can have started on the new store.
      try {
        await Promise.all([cards.close(), keyknox.close()]);
        for (const file of [files.store, files.journal, ...made])
          await rm(file, { force: true, recursive: true });
      } finally {
        await lock.release().catch(() => undefined);
      }
      if (madeFolder === undefined) return;
      // From the store's folder up to the first one this open made; a folder holding anything
      // else (rmdir refuses) is kept.
      for (let dir = folder; dir.startsWith(madeFolder); dir = dirname(dir))
        if (
          !(await rmdir(dir).then(
            () => true,
            () => false,
          ))
        )
          break;
    },
  };
}

/** One file per secret beside the store (src/io/private-file.ts: 0600, whole or not at all). */
function fileSecrets(paths: Readonly<Record<SecretName, string>>, made: string[]): SecretKeeper {
  return {
    async keep(name, make) {
      const path = paths[name];
      const kept = keepPrivateFile(path, () => `${make().trim()}\n`);
      if (kept.created) made.push(path);
      return {
        value: kept.text.trim(),
        created: kept.created,
        where: `file ${path}`,
        path,
        ...(kept.warning && { warning: kept.warning }),
      };
    },
  };
}
