// json-server 0.17, the peer users pick for a quick local JSON API, side by side: the rate of
// `POST /cards` of one record (a card's wire JSON) into a store that starts empty and into one
// holding N records, 16 connections. json-server keeps its database in memory and rewrites the
// whole file after each write (lowdb FileSync: no fsync, no atomic replace).
import { blast } from './lib/load.mjs';
import { startJsonServer } from './lib/servers.mjs';

/** POST rate of json-server on the database file `db` ({dir, file}). */
export async function measureJsonServerPost(db, bodies, { seconds, warmSeconds }) {
  const server = await startJsonServer(db.dir, db.file);
  try {
    const pool = bodies.map((body) => ({
      method: 'POST',
      path: '/cards',
      headers: { 'content-type': 'application/json' },
      body,
    }));
    if (warmSeconds > 0) await blast(server.url, pool, { seconds: warmSeconds });
    return await blast(server.url, pool, { seconds });
  } finally {
    await server.stop();
  }
}
