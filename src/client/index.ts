/**
 * `cards/client`: the HTTP client of a Cards Service (remote, or a local `cards serve`), its
 * transport and where its tokens come from (a fixed token, or minted per identity).
 */
export * from './defaults.js';
export * from './http-client.js';
export * from './token-source.js';
export * from './transport.js';
