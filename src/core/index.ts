/**
 * `cards/core`: what a Card is (snapshot, id, JSON shape, limits, compatibility profiles),
 * errors and encodings. Pure: no I/O, no clock.
 */
export * from './errors.js';
export * from './encoding.js';
export * from './limits.js';
export * from './profile.js';
export * from './card-id.js';
export * from './snapshot.js';
export * from './card.js';
export { ED25519_SPKI_LENGTH, ED25519_SPKI_PREFIX, isEd25519Spki } from './spki.js';
