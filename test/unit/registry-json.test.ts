/** The registry suite (registry.test.ts) on the json store engine (test/store/engines.ts). */
process.env.CARDS_TEST_ENGINE = 'json';
await import('./registry.test.js');
