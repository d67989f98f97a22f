// The stock clients, set up the way an application would set them up against `cards serve`:
// virgil-crypto 5 + virgil-sdk 6 (CardManager, JwtGenerator), an app key pair whose public
// half `cards serve --jwt-key` trusts, and the service key `cards serve` printed as the only
// whitelisted signer "virgil" (the set-up of docs/stock-sdk.md).
import { randomBytes } from 'node:crypto';
import {
  initCrypto,
  KeyPairType,
  VirgilAccessTokenSigner,
  VirgilCardCrypto,
  VirgilCrypto,
} from 'virgil-crypto';
import { CallbackJwtProvider, CardManager, JwtGenerator, VirgilCardVerifier } from 'virgil-sdk';

await initCrypto();
export const virgilCrypto = new VirgilCrypto({ defaultKeyPairType: KeyPairType.ED25519 });
export const cardCrypto = new VirgilCardCrypto(virgilCrypto);
const accessTokenSigner = new VirgilAccessTokenSigner(virgilCrypto);

/** A fresh identity per test run, so tests sharing one server never collide. */
export const uniqueIdentity = (label) => `${label}-${randomBytes(6).toString('hex')}`;

export const exportPublicKey = (publicKey) =>
  virgilCrypto.exportPublicKey(publicKey).toString('base64');

/**
 * An application's credentials as the vendor hands them out: an Ed25519 key pair, an app id
 * and an app key id (opaque hex), and the stock JwtGenerator over them.
 */
export function makeApp() {
  const keyPair = virgilCrypto.generateKeys();
  const appId = randomBytes(16).toString('hex');
  const appKeyId = randomBytes(32).toString('hex');
  return {
    keyPair,
    appId,
    appKeyId,
    publicKeyBase64: exportPublicKey(keyPair.publicKey),
    privateKeyBase64: virgilCrypto.exportPrivateKey(keyPair.privateKey).toString('base64'),
    /**
     * A stock-format token (VEDS512) for `identity`; `issuedAt` (UNIX seconds) pins the clock
     * the SDK reads; overrides forge a token for another app id, key id or signing key.
     */
    token(identity, { issuedAt, ttlMs = 20 * 60 * 1000, ...overrides } = {}) {
      const generator = new JwtGenerator({
        appId: overrides.appId ?? appId,
        apiKeyId: overrides.appKeyId ?? appKeyId,
        apiKey: overrides.privateKey ?? keyPair.privateKey,
        accessTokenSigner,
        millisecondsToLive: ttlMs,
      });
      return issuedAt === undefined
        ? generator.generateToken(identity)
        : atFixedTime(issuedAt, () => generator.generateToken(identity));
    },
  };
}

/** The verifier docs/stock-sdk.md prescribes: no vendor key, the local service key whitelisted. */
export const makeVerifier = (serviceKey) =>
  new VirgilCardVerifier(cardCrypto, {
    verifySelfSignature: true,
    verifyVirgilSignature: false,
    whitelists: [[{ signer: 'virgil', publicKeyBase64: serviceKey }]],
  });

/**
 * @param {object} options
 * @param {string} options.url the server's base URL
 * @param {string} options.serviceKey the service key `cards serve` printed
 * @param {(context: { identity?: string, operation: string, forceReload?: boolean }) => Promise<string>|string} options.getJwt
 * @param {boolean} [options.retryOnUnauthorized]
 */
export const makeCardManager = ({ url, serviceKey, getJwt, retryOnUnauthorized = true }) =>
  new CardManager({
    cardCrypto,
    cardVerifier: makeVerifier(serviceKey),
    accessTokenProvider: new CallbackJwtProvider(async (context) => String(await getJwt(context))),
    retryOnUnauthorized,
    apiUrl: url,
  });

/** Runs fn with the global clock pinned to `seconds` (the SDK reads `new Date()`). */
export function atFixedTime(seconds, fn) {
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

/** Resolves to the error a promise rejects with (fails when it resolves). */
export async function rejection(promise) {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection, but the call succeeded');
}
