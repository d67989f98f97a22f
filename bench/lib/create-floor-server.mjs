// The least any HTTP server on node does for one create, as a yardstick beside `cards serve`:
// node's own `http`, the body parsed, the snapshot decoded, the owner's key imported, its
// signature verified, the service's signature made, and the answer sent once its line is on
// disk (one write and one fdatasync for every card that arrived during the previous one, as
// the JSON engine commits). No token, no store, no log, no validation beyond what the crypto
// needs. Usage: node create-floor-server.mjs DIR (prints `listening on URL`).
import { fdatasync, openSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { PublicKey, generatePrivateKey, signParts, verifyParts } from 'cards/crypto';

const service = generatePrivateKey();
const fd = openSync(join(process.argv[2], 'floor.ndjson'), 'a');
let waiting = [];
let syncing = false;

function commit() {
  if (syncing || waiting.length === 0) return;
  syncing = true;
  const batch = waiting;
  waiting = [];
  writeSync(fd, batch.map((entry) => entry.line).join(''));
  fdatasync(fd, () => {
    syncing = false;
    for (const entry of batch) entry.answer();
    commit();
  });
}

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const card = JSON.parse(Buffer.concat(chunks).toString());
    const snapshot = Buffer.from(card.content_snapshot, 'base64');
    const owner = PublicKey.fromSpki(Buffer.from(JSON.parse(snapshot).public_key, 'base64'));
    const self = Buffer.from(card.signatures[0].signature, 'base64');
    if (!verifyParts(owner, self, snapshot)) {
      res.writeHead(400).end();
      return;
    }
    const signature = Buffer.from(signParts(service, snapshot)).toString('base64');
    card.signatures.push({ signer: 'service', signature });
    const line = JSON.stringify(card);
    waiting.push({
      line: `${line}\n`,
      answer: () => res.writeHead(200, { 'content-type': 'application/json' }).end(line),
    });
    commit();
  });
}).listen(0, '127.0.0.1', function () {
  process.stdout.write(`listening on http://127.0.0.1:${this.address().port}\n`);
});
