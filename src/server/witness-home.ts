/**
 * A witness's home (`cards witness serve`): its key and state in a folder, the logs it trusts
 * by their verifier keys (the key name is the log's origin), its server listening. The rules
 * are in src/log/witness.ts, the HTTP server in src/witness/. One witness at a time uses a
 * folder (a lock file in it, as a store has): two processes holding one key and state could each
 * cosign one side of a fork, where C2SP tlog-witness v1.0.0 has a witness cosign only checkpoints
 * consistent with the last it cosigned.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ed25519Verifier, type NoteVerifier } from '../log/note-keys.js';
import { createWitnessServer } from '../witness/server.js';
import { openWitnessFolder } from '../witness/state.js';
import { acquireLock } from '../store/json/lock.js';
import { listenOn } from './listen.js';

export interface WitnessOptions {
  /** The folder of its key (made on first start) and state. */
  readonly dir: string;
  /** Its key name, used on first start. */
  readonly name: string;
  /** The verifier keys of the logs it cosigns. */
  readonly logs: readonly string[];
  readonly host: string;
  readonly port: number;
}

export interface RunningWitness {
  readonly url: string;
  /** Its cosignature verifier key (name+id+key). */
  readonly vkey: string;
  /** The logs whose checkpoints it has seen, from its state. */
  readonly logsSeen: number;
  /** The origins it cosigns. */
  readonly origins: readonly string[];
  close(): Promise<void>;
}

export async function startWitness(options: WitnessOptions): Promise<RunningWitness> {
  const logs = new Map<string, NoteVerifier[]>();
  for (const vkey of options.logs) {
    const verifier = ed25519Verifier(vkey);
    logs.set(verifier.name, [...(logs.get(verifier.name) ?? []), verifier]);
  }
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  const lock = await acquireLock(
    join(options.dir, 'witness.lock'),
    options.dir,
    '--dir',
    undefined,
    'witness serve',
  );
  try {
    const folder = await openWitnessFolder(options.dir, options.name);
    const witness = createWitnessServer({ folder, logs });
    const url = await listenOn(options.host, options.port, () =>
      witness.listen(options.port, options.host),
    );
    return {
      url,
      vkey: witness.vkey,
      logsSeen: folder.state.logs.size,
      origins: [...logs.keys()],
      close: async () => {
        await witness.close();
        await lock.release();
      },
    };
  } catch (err) {
    await lock.release();
    throw err;
  }
}
