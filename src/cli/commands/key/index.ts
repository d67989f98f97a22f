/**
 * `cards key public|service|log|list|prune`: the public half of a key, a store's service key, a
 * server's log key, the keystore.
 */
import { Argument, Option } from 'commander';
import { declare } from '../../command.js';
import type { AdminFlags } from '../../admin-access.js';
import { adminFlags, dbFlag, identityFlag } from '../../flags.js';
import type { LogKeyResult } from './log-key.js';
import type { KeyListResult, KeyPruneResult, KeyPublicResult, KeyServiceOptions } from './key.js';

const key = () => import('./key.js');
const publicKey = (r: KeyPublicResult) => r.publicKey;

export default [
  declare({
    name: 'key',
    summary: "Keys: the public half of a key, a server's service and log keys, the keystore.",
  }),
  declare({
    name: 'key public',
    summary: 'Print the public key (base64 DER SPKI) of a private key file or keystore key.',
    args: [new Argument('[file]', 'private key file (PEM or base64 DER PKCS#8)')],
    flags: [new Option('--identity <id>', 'the keystore key of this identity instead of FILE')],
    examples: ['cards key public alice.pem', 'cards key public --identity alice --json'],
    run: async (ctx, options: { identity?: string }, [file]) =>
      (await key()).keyPublic(ctx, { ...options, ...(file !== undefined && { file }) }),
    text: publicKey,
  }),
  declare({
    name: 'key service',
    summary: 'Print the public service key of a local `cards serve` store (for inspect).',
    flags: [dbFlag()],
    help: `The key beside the store (cards.json.service-key.pem for cards.json), made by \`cards serve\`
on first start. \`cards inspect\` uses it by itself when --db names the store.`,
    examples: [
      'cards key service',
      'cards inspect card.json --service-key "$(cards key service --db data/cards.json)"',
    ],
    run: async (ctx, options: KeyServiceOptions) => (await key()).keyService(ctx, options),
    text: publicKey,
  }),
  declare({
    name: 'key log',
    summary: "Print the verifier key of a server's transparency log (for verify and monitor).",
    flags: [adminFlags()],
    help: `The key of the log the server keeps now, from its admin API: after \`cards reset\` the log
begins anew (origin …/reset-N) under a key of its own, and this prints it at once.`,
    examples: [
      'export CARDS_LOG_KEY="$(cards key log)"',
      'cards config set logKey "$(cards key log)"',
    ],
    run: async (ctx, options: AdminFlags) => (await import('./log-key.js')).logKey(ctx, options),
    text: (r: LogKeyResult) => r.vkey,
  }),
  declare({
    name: 'key list',
    summary: 'List the identities that have a key in the keystore.',
    examples: ['cards key list', 'CARDS_HOME=/tmp/home cards key list --json'],
    run: async (ctx) => (await key()).keyList(ctx),
    text: (r: KeyListResult, s) =>
      r.keys.length === 0
        ? s.dim(`no keys in ${r.home}/keys; make one with \`cards keygen --identity ID\``)
        : r.keys.map((k) => `${k.identity}\t${s.dim(k.file)}`).join('\n'),
  }),
  declare({
    name: 'key prune',
    summary: "Remove an identity's key backups of earlier rotations (its key stays).",
    flags: [identityFlag('the identity whose key backups go')],
    examples: ['cards key prune --identity alice'],
    run: async (ctx, options: { identity?: string }) =>
      (await key()).keyPrune(ctx, options.identity),
    text: (r: KeyPruneResult, s) =>
      r.pruned.length === 0
        ? s.dim(`no key backups of ${r.identity}`)
        : r.pruned.map((file) => `pruned ${file}`).join('\n'),
  }),
];
