/** The transparency log's public surface (see each module for the spec it implements). */
export * from './append.js';
export * from './checkpoint.js';
export * from './cosignature.js';
export * from './entry-bundle.js';
export * from './hash.js';
export * from './memory-tiles.js';
export * from './note.js';
export * from './note-keys.js';
export * from './proofs.js';
export * from './tile-hashes.js';
export * from './tile-path.js';
export * from './tlog-proof.js';
export * from './tree.js';
export * from './witness.js';
export * from './log-writer.js';
export * from './tile-store.js';
