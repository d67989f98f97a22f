/**
 * The library surface of `cards` (package entry `.`): the core and its cryptography. The same
 * modules, and the HTTP client, are also reachable one layer at a time: `cards/core`,
 * `cards/crypto`, `cards/client` (package.json `exports`).
 */
export * from './core/index.js';
export * from './crypto/index.js';
