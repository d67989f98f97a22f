/**
 * What the HTTP tests serve e3kit's routes with: the registry's Keyknox rules over an in-memory
 * Keyknox store, and Pythia on a real worker pool (one thread, opened once per test file,
 * closed after it) with keys of a fixed secret; and what a client sends: a password blinded by
 * the vendor's own library, as virgil-pythia does.
 */
import { after } from 'node:test';
import { encodeBase64 } from '../../src/core/encoding.js';
import type { PythiaKeys } from '../../src/crypto/pythia.js';
import { loadPythia } from '../../src/pythia/load.js';
import { PythiaPool } from '../../src/pythia/pool.js';
import { KeyknoxV1 } from '../../src/registry/keyknox-v1.js';
import { KeyknoxV2 } from '../../src/registry/keyknox-v2.js';
import { Pythia } from '../../src/registry/pythia.js';
import { PythiaThrottle, type ThrottleSetting } from '../../src/registry/pythia-throttle.js';
import { MemoryKeyknoxStore } from '../../src/store/memory/keyknox-store.js';

const SECRET = new Uint8Array(32).map((_, i) => 100 + i);
let pool: Promise<{ pool: PythiaPool; keys: PythiaKeys }> | undefined;

function sharedPool(): Promise<{ pool: PythiaPool; keys: PythiaKeys }> {
  pool ??= (async () => {
    const opened = await PythiaPool.open({ threads: 1 });
    after(() => opened.close());
    return { pool: opened, keys: await opened.keys(SECRET, 2) };
  })();
  return pool;
}

/**
 * The e3kit routes' dependencies, and the Keyknox store their rules write (`keyknox`, for the
 * admin API). The throttle's window is a minute by default here, so a test that counts on a
 * refusal does not depend on how fast the machine computes.
 */
export async function e3kitDeps(
  throttle: ThrottleSetting | 'off' = { burst: 2, refillMs: 60_000 },
) {
  const store = new MemoryKeyknoxStore();
  const { pool: opened, keys } = await sharedPool();
  return {
    keyknox: store,
    keyknoxV1: new KeyknoxV1(store),
    keyknoxV2: new KeyknoxV2(store),
    pythia: Promise.resolve(new Pythia(opened, keys, new PythiaThrottle(throttle))),
  };
}

/** A password blinded as virgil-pythia blinds it: `blinded_password` and the secret to deblind. */
export async function blind(password: string) {
  const client = await loadPythia();
  const { blindedPassword, blindingSecret } = client.blind(password);
  return {
    blinded: encodeBase64(blindedPassword),
    deblind: (seed: string) =>
      encodeBase64(
        client.deblind({
          transformedPassword: Buffer.from(seed, 'base64'),
          blindingSecret,
        }),
      ),
  };
}
