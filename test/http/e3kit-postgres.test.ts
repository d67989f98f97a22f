/** e3kit's backend over HTTP (e3kit.test.ts) against `cards serve --store postgres://…`. */
process.env.CARDS_TEST_ENGINE = 'postgres';
await import('./e3kit.test.js');
