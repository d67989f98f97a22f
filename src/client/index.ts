/**
 * `cards/client`: the HTTP client of a Cards Service (remote, or a local `cards serve`), its
 * transport and where its tokens come from (a fixed token, or minted per identity).
 */
export * from './defaults.js';
// By name: http-client.ts also holds what only the admin client shares with it (answerTooLarge).
export { CardsClient, type ClientOptions, type FetchedCard } from './http-client.js';
export * from './token-source.js';
export * from './transport.js';
