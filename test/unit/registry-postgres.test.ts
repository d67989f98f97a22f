/** The registry suite (registry.test.ts) on the postgres store engine (test/store/engines.ts). */
process.env.CARDS_TEST_ENGINE = 'postgres';
await import('./registry.test.js');
