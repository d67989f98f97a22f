/**
 * `cards/crypto`: Ed25519 keys, the wire's DER structures, card signing and verification, and
 * access tokens (EdDSA JWTs and the stock VEDS512 format). Pure; bytes in, bytes out.
 */
export * from './der.js';
export * from './keys.js';
export * from './ed25519.js';
export * from './verify-card.js';
export * from './sign-card.js';
export * from './tokens.js';
export * from './stock-token.js';
