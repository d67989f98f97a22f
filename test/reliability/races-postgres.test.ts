/** The races (races.test.ts) against a PostgreSQL-backed `cards serve` (test/helpers/server.ts). */
process.env.CARDS_TEST_ENGINE = 'postgres';
await import('./races.test.js');
