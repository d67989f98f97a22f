/** The HTTP app suite (app.test.ts) on the json store engine (test/store/engines.ts). */
process.env.CARDS_TEST_ENGINE = 'json';
await import('./app.test.js');
