/** The admin commands (admin.test.ts) against `cards serve --store postgres://…` (helpers/server.ts). */
process.env.CARDS_TEST_ENGINE = 'postgres';
await import('./admin.test.js');
