/** `cards keygen`: a key pair into the keystore or a file. */
import { Option } from 'commander';
import { declare } from '../../command.js';
import { identityFlag, keyTypeFlag } from '../../flags.js';
import type { KeygenOptions, KeygenResult } from './keygen.js';

export default declare({
  name: 'keygen',
  summary:
    'Make a key pair (Ed25519 unless --type): into the keystore (per identity) or a file (PEM PKCS#8).',
  flags: [
    identityFlag(),
    keyTypeFlag("key type, in the stock client's formats").default('ed25519'),
    new Option('--out <file>', 'write the private key to FILE instead of the keystore'),
    new Option('--force', 'replace an existing key (the old one is lost)'),
  ],
  help: `Prints the public key (base64 DER SPKI). Keystore: $CARDS_HOME/keys (default ~/.cards/keys),
one file per identity, mode 0600 in a 0700 folder.

Types: ed25519 (default; the stock KeyPairType ED25519), p256 (SECP256R1), rsa2048 … rsa8192
(RSA_2048 … RSA_8192). The compound types (CURVE25519_ED25519, CURVE25519_ROUND5_ED25519_FALCON)
are made by the stock client only; the server and \`cards inspect\` verify them.`,
  examples: [
    'cards keygen --identity alice',
    'cards keygen --identity bob --type p256',
    'cards keygen --out app-key.pem --json',
  ],
  run: async (ctx, options: KeygenOptions) => (await import('./keygen.js')).keygen(ctx, options),
  text: (r: KeygenResult, s) =>
    [
      `${s.bold('public key')}  ${r.publicKey}`,
      `private key ${r.file}${r.identity ? ` (${r.identity})` : ''}`,
    ].join('\n'),
});
