// Generates fixtures/stock-client-cards.json with the vendor's *stock* JavaScript clients
// (virgil-crypto 5.1.2 + virgil-sdk 6.2.0, pinned in interop/package-lock.json).
// No hand-written crypto: keys, card snapshots, signatures, card ids and JWTs all come from
// VirgilCrypto / CardManager / ModelSigner / JwtGenerator.
//
// Usage (from the repo root, after `npm ci --prefix interop`):
//   node interop/make-fixtures.mjs            # writes fixtures/stock-client-cards.json
//   node interop/make-fixtures.mjs --stdout   # prints it instead
//
// Determinism: key pairs come from VirgilCrypto.generateKeysFromKeyMaterial() with fixed
// key material, and the SDK's clock (it calls `new Date()` inside generateRawCard and
// JwtGenerator.generateToken) is pinned to fixed instants while those calls run. Ed25519 is
// deterministic, so re-running the script reproduces the file byte for byte.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  initCrypto,
  VirgilCrypto,
  VirgilCardCrypto,
  VirgilAccessTokenSigner,
  KeyPairType,
  HashAlgorithm,
} from 'virgil-crypto';
import {
  CardManager,
  ModelSigner,
  RawSignedModel,
  VirgilCardVerifier,
  JwtGenerator,
  Jwt,
} from 'virgil-sdk';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..');
const outPath = join(repoRoot, 'fixtures', 'stock-client-cards.json');

const pkgVersion = (name) =>
  JSON.parse(readFileSync(join(here, 'node_modules', ...name.split('/'), 'package.json'), 'utf8'))
    .version;
const versions = {
  'virgil-sdk': pkgVersion('virgil-sdk'),
  'virgil-crypto': pkgVersion('virgil-crypto'),
  '@virgilsecurity/sdk-crypto': pkgVersion('@virgilsecurity/sdk-crypto'),
};
if (versions['virgil-sdk'] !== '6.2.0' || versions['virgil-crypto'] !== '5.1.2') {
  throw new Error(`unexpected stock client versions: ${JSON.stringify(versions)}`);
}

// ---- fixed instants (UNIX seconds) -------------------------------------------------------
const T_CARD_ALICE = 1700000000; // 2023-11-14T22:13:20Z
const T_CARD_ALICE_APP = 1700000100;
const T_CARD_ALICE_REPLACEMENT = 1700000200;
const T_CARD_BOB = 1700000300;
const T_TOKEN_VALID = 1735689600; // 2025-01-01T00:00:00Z
const TOKEN_VALID_TTL_MS = 100 * 365 * 24 * 3600 * 1000; // ~100 years
const T_TOKEN_EXPIRED = 1577836800; // 2020-01-01T00:00:00Z
const TOKEN_EXPIRED_TTL_MS = 20 * 60 * 1000; // the SDK default, 20 minutes

/** Runs fn with the global Date pinned to `seconds` (only `new Date()` / Date.now() change). */
function atFixedTime(seconds, fn) {
  const RealDate = globalThis.Date;
  const fixedMs = seconds * 1000;
  class FixedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(fixedMs);
      else super(...args);
    }
    static now() {
      return fixedMs;
    }
  }
  globalThis.Date = FixedDate;
  try {
    return fn();
  } finally {
    globalThis.Date = RealDate;
  }
}

await initCrypto();
const virgilCrypto = new VirgilCrypto({ defaultKeyPairType: KeyPairType.ED25519 });
const cardCrypto = new VirgilCardCrypto(virgilCrypto);
const accessTokenSigner = new VirgilAccessTokenSigner(virgilCrypto);

// ---- keys ---------------------------------------------------------------------------------
const keyMaterial = (label) =>
  createHash('sha512').update(`cards-interop-fixture:${label}`).digest();
const keys = [];
const keyByName = {};
function makeKey(name, identity, role) {
  const pair = virgilCrypto.generateKeysFromKeyMaterial(keyMaterial(name), KeyPairType.ED25519);
  const entry = {
    name,
    identity,
    role,
    private_key_base64: virgilCrypto.exportPrivateKey(pair.privateKey).toString('base64'),
    public_key_base64: virgilCrypto.exportPublicKey(pair.publicKey).toString('base64'),
  };
  keys.push(entry);
  keyByName[name] = { ...entry, pair };
  return keyByName[name];
}
const alice1 = makeKey(
  'alice-1',
  'alice',
  'card key of card alice-plain and alice-with-app-signer',
);
const alice2 = makeKey('alice-2', 'alice', 'card key of card alice-replacement (rotated key)');
const bob = makeKey('bob-1', 'bob', 'card key of card bob-plain');
const appSigner = makeKey('app-signer', 'app', 'extra signer "app" on card alice-with-app-signer');
const appKey = makeKey('jwt-app-key', null, 'application API key that signs the JWTs (VEDS512)');

// ---- cards --------------------------------------------------------------------------------
const cardManager = new CardManager({
  cardCrypto,
  apiUrl: 'http://127.0.0.1:0', // never contacted: raw-card generation is offline
  retryOnUnauthorized: false,
  // self-signature check only; the service ("virgil") signature does not exist yet.
  cardVerifier: new VirgilCardVerifier(cardCrypto, {
    verifySelfSignature: true,
    verifyVirgilSignature: false,
  }),
});
const modelSigner = new ModelSigner(cardCrypto);

const cards = [];
function addCard(name, description, raw, identity, cardKey, signerKeys) {
  const imported = cardManager.importCard(raw); // parses + verifies self signature
  const json = raw.toJson();
  // Every non-self signer must verify too (stock whitelist path).
  for (const [signer, publicKeyBase64] of Object.entries(signerKeys)) {
    if (signer === 'self') continue;
    const v = new VirgilCardVerifier(cardCrypto, {
      verifySelfSignature: true,
      verifyVirgilSignature: false,
      whitelists: [[{ signer, publicKeyBase64 }]],
    });
    if (!v.verifyCard(imported))
      throw new Error(`whitelist verification failed for ${name}/${signer}`);
  }
  const entry = {
    name,
    description,
    card: json,
    card_id: imported.id,
    identity: imported.identity,
    public_key_base64: cardKey.public_key_base64,
    previous_card_id: imported.previousCardId ?? null,
    created_at: Math.floor(imported.createdAt.getTime() / 1000),
    content_snapshot_text: raw.contentSnapshot,
    signer_keys: signerKeys,
  };
  if (entry.identity !== identity) throw new Error(`identity mismatch for ${name}`);
  cards.push(entry);
  return entry;
}

// (a) plain card, self signature only
const rawA = atFixedTime(T_CARD_ALICE, () =>
  cardManager.generateRawCard({
    identity: 'alice',
    privateKey: alice1.pair.privateKey,
    publicKey: alice1.pair.publicKey,
  }),
);
const cardA = addCard(
  'alice-plain',
  'cardManager.generateRawCard: self signature only',
  rawA,
  'alice',
  alice1,
  { self: alice1.public_key_base64 },
);

// (b) self signature with extra snapshot + extra signer "app" with its own extra snapshot
const rawB = atFixedTime(T_CARD_ALICE_APP, () =>
  cardManager.generateRawCard({
    identity: 'alice',
    privateKey: alice1.pair.privateKey,
    publicKey: alice1.pair.publicKey,
    extraFields: { device: 'laptop' },
  }),
);
modelSigner.sign({
  model: rawB,
  signerPrivateKey: appSigner.pair.privateKey,
  signer: 'app',
  extraFields: { app_user_id: '42', role: 'member' },
});
addCard(
  'alice-with-app-signer',
  'cardManager.generateRawCard with extraFields (self snapshot) + ModelSigner.sign({signer:"app", extraFields})',
  rawB,
  'alice',
  alice1,
  { self: alice1.public_key_base64, app: appSigner.public_key_base64 },
);

// (c) replacement card for alice (new key) naming (a) as previous card
const rawC = atFixedTime(T_CARD_ALICE_REPLACEMENT, () =>
  cardManager.generateRawCard({
    identity: 'alice',
    privateKey: alice2.pair.privateKey,
    publicKey: alice2.pair.publicKey,
    previousCardId: cardA.card_id,
  }),
);
addCard(
  'alice-replacement',
  'cardManager.generateRawCard with previousCardId = card_id of alice-plain (key rotation)',
  rawC,
  'alice',
  alice2,
  { self: alice2.public_key_base64 },
);

// (d) bob's plain card
const rawD = atFixedTime(T_CARD_BOB, () =>
  cardManager.generateRawCard({
    identity: 'bob',
    privateKey: bob.pair.privateKey,
    publicKey: bob.pair.publicKey,
  }),
);
addCard('bob-plain', 'cardManager.generateRawCard: self signature only', rawD, 'bob', bob, {
  self: bob.public_key_base64,
});

// Sanity: RawSignedModel round trip through the wire JSON is lossless.
for (const c of cards) {
  const again = RawSignedModel.fromJson(c.card).toJson();
  if (JSON.stringify(again) !== JSON.stringify(c.card))
    throw new Error(`round trip changed ${c.name}`);
}

// ---- tokens -------------------------------------------------------------------------------
const hex = (label, bytes) =>
  createHash('sha512')
    .update(`cards-interop-fixture:${label}`)
    .digest()
    .subarray(0, bytes)
    .toString('hex');
const appId = hex('app-id', 16); // 32 hex chars, like the vendor's app ids
const appKeyId = virgilCrypto
  .calculateHash(Buffer.from(appKey.public_key_base64, 'base64'), HashAlgorithm.SHA256)
  .toString('hex'); // 64 hex chars
const tokens = [];
function addToken(name, identity, issuedAt, ttlMs) {
  const generator = new JwtGenerator({
    appId,
    apiKeyId: appKeyId,
    apiKey: appKey.pair.privateKey,
    accessTokenSigner,
    millisecondsToLive: ttlMs,
  });
  const jwt = atFixedTime(issuedAt, () => generator.generateToken(identity));
  const parsed = Jwt.fromString(jwt.toString());
  if (
    !accessTokenSigner.verifyTokenSignature(
      { value: parsed.unsignedData, encoding: 'utf8' },
      { value: parsed.signature, encoding: 'base64' },
      appKey.pair.publicKey,
    )
  ) {
    throw new Error(`token ${name} does not verify`);
  }
  tokens.push({
    name,
    jwt: jwt.toString(),
    app_id: appId,
    app_key_id: appKeyId,
    app_public_key_base64: appKey.public_key_base64,
    app_private_key_base64: appKey.private_key_base64,
    identity,
    issued_at: parsed.body.iat,
    expires_at: parsed.body.exp,
    header: parsed.header,
    claims: parsed.body,
  });
}
addToken('alice-valid', 'alice', T_TOKEN_VALID, TOKEN_VALID_TTL_MS);
addToken('bob-valid', 'bob', T_TOKEN_VALID, TOKEN_VALID_TTL_MS);
addToken('alice-expired', 'alice', T_TOKEN_EXPIRED, TOKEN_EXPIRED_TTL_MS);

// ---- write --------------------------------------------------------------------------------
const iso = (s) => new Date(s * 1000).toISOString();
const provenance =
  `Generated by \`node interop/make-fixtures.mjs\` (run from the repo root on Node ${process.version}) ` +
  `using the vendor's stock clients pinned in interop/package-lock.json: virgil-sdk ${versions['virgil-sdk']}, ` +
  `virgil-crypto ${versions['virgil-crypto']} (@virgilsecurity/sdk-crypto ${versions['@virgilsecurity/sdk-crypto']}). ` +
  `No hand-written crypto. Keys: VirgilCrypto.generateKeysFromKeyMaterial(SHA-512("cards-interop-fixture:<key name>"), ED25519), ` +
  `exported with exportPrivateKey (DER PKCS#8) / exportPublicKey (DER SPKI). ` +
  `Cards: CardManager.generateRawCard (+ ModelSigner.sign for signer "app"), serialised with RawSignedModel.toJson(); ` +
  `card_id = CardManager.importCard(raw).id. The SDK reads the clock with new Date(); the global Date was pinned while ` +
  `generating, so created_at = ${T_CARD_ALICE}, ${T_CARD_ALICE_APP}, ${T_CARD_ALICE_REPLACEMENT}, ${T_CARD_BOB} for the 4 cards in order. ` +
  `Tokens: JwtGenerator({appId, apiKeyId, apiKey, accessTokenSigner: VirgilAccessTokenSigner, millisecondsToLive}).generateToken(identity) ` +
  `with the clock pinned: valid tokens iat ${T_TOKEN_VALID} (${iso(T_TOKEN_VALID)}), ttl ~100 years, exp ${T_TOKEN_VALID + TOKEN_VALID_TTL_MS / 1000} ` +
  `(${iso(T_TOKEN_VALID + TOKEN_VALID_TTL_MS / 1000)}); expired token iat ${T_TOKEN_EXPIRED} (${iso(T_TOKEN_EXPIRED)}), ttl 20 min (SDK default). ` +
  `app_id = first 16 bytes of SHA-512("cards-interop-fixture:app-id") in hex; app_key_id = SHA-256(app public key DER) in hex. ` +
  `Cards carry no service signature (they were never published). Deterministic: re-running reproduces this file byte for byte.`;

const fixture = { _provenance: provenance, keys, cards, tokens };
const text = JSON.stringify(fixture, null, 2) + '\n';
if (process.argv.includes('--stdout')) process.stdout.write(text);
else {
  writeFileSync(outPath, text);
  console.error(
    `wrote ${outPath}: ${keys.length} keys, ${cards.length} cards, ${tokens.length} tokens`,
  );
}
