// `node bench/ab-reads.mjs [--no-admin]`: CPU µs per get and per one-identity search on a store of
// 20,000 cards, 3 rounds; BENCH_CARDS_BIN picks the build. CPU per request holds up on a busy
// machine where requests/s do not, so two builds run one after the other compare.
import { parseArgs } from 'node:util';
import { measureReads } from './cards-server.mjs';
import { mintTokens, storeIdentities } from './lib/cards.mjs';
import { startCards } from './lib/servers.mjs';
import {
  appKeyOf,
  buildStore,
  copyStore,
  makeKeysDir,
  removeTempDirs,
  storeIds,
} from './lib/stores.mjs';

const { values } = parseArgs({ options: { 'no-admin': { type: 'boolean', default: false } } });
const size = 20_000;
process.once('exit', removeTempDirs);
const keysDir = await makeKeysDir();
const big = await buildStore(keysDir, size);
const [token] = (await mintTokens(appKeyOf(keysDir), ['reader@example.com'])).values();
const server = await startCards(copyStore(big), [
  '--quiet',
  ...(values['no-admin'] ? ['--no-admin'] : []),
]);
const identities = storeIdentities(size);
const ids = storeIds(big);
for (let round = 1; round <= 3; round++) {
  const reads = await measureReads(server, { ids, identities, token, seconds: 3, warmSeconds: 1 });
  console.log(
    `round ${round}: get ${Math.round(reads.get.rps)}/s ${reads.get.cpuUsPerRequest.toFixed(0)} µs CPU; ` +
      `search one ${Math.round(reads.searchOne.rps)}/s ${reads.searchOne.cpuUsPerRequest.toFixed(0)} µs CPU`,
  );
}
await server.stop();
