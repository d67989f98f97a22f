/**
 * Loads the vendor's Pythia implementation: `@virgilsecurity/pythia-crypto` over the
 * `@virgilsecurity/core-pythia` WebAssembly build of VirgilSecurity/pythia and RELIC.
 *
 * The WebAssembly is handed over as bytes read from the package, so its loader never tries the
 * global `fetch` (Node's has no file URLs). The module's own printing is silenced: it writes
 * "ERROR: invalid value passed as input." to stderr for every bad point, which a client can
 * send at will. The loader also registers process-wide `uncaughtException` and
 * `unhandledRejection` handlers of its own (Emscripten's), so the server loads it on worker
 * threads only (pool.ts), where a thread's `process` events stay in that thread.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PythiaPrimitives } from '../crypto/pythia.js';

const require = createRequire(import.meta.url);

/** The client-side calls as well (blind, deblind, verify, update): the tests play the client. */
export interface VendorPythia extends PythiaPrimitives {
  blind(password: Uint8Array | string): { blindedPassword: Uint8Array; blindingSecret: Uint8Array };
  deblind(options: { transformedPassword: Uint8Array; blindingSecret: Uint8Array }): Uint8Array;
  verify(options: {
    transformedPassword: Uint8Array;
    blindedPassword: Uint8Array;
    tweak: Uint8Array;
    transformationPublicKey: Uint8Array;
    proofValueC: Uint8Array;
    proofValueU: Uint8Array;
  }): boolean;
  updateDeblindedWithToken(options: {
    deblindedPassword: Uint8Array;
    updateToken: Uint8Array;
  }): Uint8Array;
}

interface PythiaCryptoPackage {
  initPythia(args: Record<string, unknown[]>): Promise<void>;
  VirgilPythiaCrypto: new () => VendorPythia;
}

let loaded: Promise<VendorPythia> | undefined;

/** The vendor's `VirgilPythiaCrypto`, its WebAssembly instantiated once per thread. */
export function loadPythia(): Promise<VendorPythia> {
  loaded ??= (async () => {
    const pkg = require('@virgilsecurity/pythia-crypto') as PythiaCryptoPackage;
    const wasmFile = join(
      dirname(require.resolve('@virgilsecurity/core-pythia')),
      'libpythia.wasm',
    );
    const silent = (): void => undefined;
    await pkg.initPythia({
      pythia: [{ wasmBinary: readFileSync(wasmFile), print: silent, printErr: silent }],
    });
    return new pkg.VirgilPythiaCrypto();
  })();
  return loaded;
}
