/** The e2e HTTP suite (e2e.test.ts) against `cards serve --store postgres://…` (helpers/server.ts). */
process.env.CARDS_TEST_ENGINE = 'postgres';
await import('./e2e.test.js');
