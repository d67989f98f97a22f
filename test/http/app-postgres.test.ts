/** The HTTP app suite (app.test.ts) on the postgres store engine (test/store/engines.ts). */
process.env.CARDS_TEST_ENGINE = 'postgres';
await import('./app.test.js');
