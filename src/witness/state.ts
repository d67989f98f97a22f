/**
 * The witness's folder: its Ed25519 key (witness-key.pem, mode 0600, made on first start like
 * the server's keys) and its state (witness-state.json: its name and, per log origin, the latest
 * cosigned size, root and checkpoint). The state is replaced atomically (temporary file, fsync,
 * rename, fsync of the folder) before any cosignature leaves, as tlog-witness v1.0.0 requires.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CardsError } from '../core/errors.js';
import { decodeBase64, encodeBase64 } from '../core/encoding.js';
import { HASH_SIZE } from '../log/hash.js';
import type { WitnessRecord } from '../log/witness.js';
import { replaceFile } from '../io/fs-durable.js';
import { loadOrCreatePrivateKey, type KeyFile } from '../io/key-files.js';

const STATE_FORMAT = 'cards-witness-state/1';

export interface WitnessState {
  readonly name: string;
  readonly logs: Map<string, WitnessRecord & { readonly checkpoint: string }>;
}

interface StateFile {
  format: string;
  name: string;
  logs: Record<string, { size: number; root: string; checkpoint: string }>;
}

export interface WitnessFolder {
  readonly dir: string;
  readonly key: KeyFile;
  readonly state: WitnessState;
  save(state: WitnessState): Promise<void>;
}

/** Opens (or makes) the folder; `name` is used only when the state file is new. */
export async function openWitnessFolder(dir: string, name: string): Promise<WitnessFolder> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const key = await loadOrCreatePrivateKey(join(dir, 'witness-key.pem'));
  const statePath = join(dir, 'witness-state.json');
  const save = async (state: WitnessState): Promise<void> => {
    const file: StateFile = { format: STATE_FORMAT, name: state.name, logs: {} };
    for (const [origin, r] of state.logs) {
      file.logs[origin] = { size: r.size, root: encodeBase64(r.root), checkpoint: r.checkpoint };
    }
    await replaceFile(statePath, [`${JSON.stringify(file, null, 2)}\n`], 0o600);
  };
  let text: string | undefined;
  try {
    text = await readFile(statePath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (text === undefined) {
    const state: WitnessState = { name, logs: new Map() };
    await save(state);
    return { dir, key, state, save };
  }
  return { dir, key, state: parseState(statePath, text), save };
}

function parseState(path: string, text: string): WitnessState {
  const corrupt = (why: string): CardsError =>
    new CardsError(
      'STORE_CORRUPT',
      `${path}: ${why}; refusing to start rather than forget what was cosigned`,
    );
  let file: StateFile;
  try {
    file = JSON.parse(text) as StateFile;
  } catch {
    throw corrupt('not JSON');
  }
  if (file?.format !== STATE_FORMAT || typeof file.name !== 'string')
    throw corrupt(`not ${STATE_FORMAT}`);
  const logs = new Map<string, WitnessRecord & { checkpoint: string }>();
  for (const [origin, r] of Object.entries(file.logs ?? {})) {
    const root = decodeBase64(String(r?.root));
    // A size is a tree size: a safe integer, not negative (C2SP tlog-checkpoint).
    if (
      !Number.isSafeInteger(r?.size) ||
      r.size < 0 ||
      root?.byteLength !== HASH_SIZE ||
      typeof r.checkpoint !== 'string'
    )
      throw corrupt(`bad record for ${origin}`);
    logs.set(origin, { size: r.size, root, checkpoint: r.checkpoint });
  }
  return { name: file.name, logs };
}
