/** The library surface of `cards`: the core and its cryptography. */
export * from './core/errors.js';
export * from './core/encoding.js';
export * from './core/limits.js';
export * from './core/card-id.js';
export * from './core/snapshot.js';
export * from './core/card.js';
export * from './crypto/der.js';
export * from './crypto/keys.js';
export * from './crypto/ed25519.js';
export * from './crypto/verify-card.js';
export * from './crypto/sign-card.js';
export * from './crypto/tokens.js';
export * from './crypto/stock-token.js';
