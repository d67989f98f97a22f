/**
 * Identities no engine can hold alike, sent in a burst among honest creates, against a real
 * `cards serve` on PostgreSQL and on the JSON store (docs/http.md, "Text"): 600 honest creates
 * and creates for "x\u0000", "x\uD800" and "x\uDBFF" at once. Each such create is refused with
 * 400 TEXT_NOT_UNICODE (40091), whatever checks it first (the token naming the identity, or the
 * snapshot holding it), and every honest create is stored (201): none is refused as busy (503)
 * for sharing a burst, the way a batch with U+0000 failed whole on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { encodeBase64, utf8 } from '../../src/core/encoding.js';
import { cardIdOf } from '../../src/core/card-id.js';
import { signParts } from '../../src/crypto/ed25519.js';
import { generatePrivateKey } from '../../src/crypto/keys.js';
import { readFileSync } from 'node:fs';
import { parsePrivateKey } from '../../src/crypto/keys.js';
import { APP_KEY_NAME } from '../../src/server/server-keys.js';
import { freshStoreUrl, sql } from '../helpers/postgres.js';
import { startServer, testToken, type TestServer } from '../helpers/server.js';
import { makeCard } from '../http/card-kit.js';

/** Identities as JSON text, and the string each stands for. */
const NOT_TEXT: [string, string][] = [
  ['"x\\u0000"', 'x\u0000'],
  ['"x\\ud800"', 'x\uD800'],
  ['"x\\udbff"', 'x\uDBFF'],
];

/** A self-signed card whose snapshot's identity is written `identityJson` exactly. */
function cardOfText(identityJson: string, createdAt: number) {
  const key = generatePrivateKey();
  const bytes = utf8(
    `{"identity":${identityJson},"public_key":"${encodeBase64(key.publicKey.spki)}","version":"5.0","created_at":${createdAt}}`,
  );
  return {
    id: cardIdOf(bytes),
    raw: {
      content_snapshot: encodeBase64(bytes),
      signatures: [{ signer: 'self', signature: encodeBase64(signParts(key, bytes)) }],
    },
  };
}

for (const engine of ['PostgreSQL', 'JSON'] as const) {
  describe(`a burst of creates with identities that are not text, on ${engine}`, () => {
    let server: TestServer | undefined;
    after(() => server?.dispose());

    test('each is 400 TEXT_NOT_UNICODE; all 600 honest creates beside them are stored', async () => {
      server = await startServer({
        args: ['--quiet', '--no-log'],
        ...(engine === 'PostgreSQL' && { store: await freshStoreUrl() }),
      });
      const served = server;
      const post = async (token: string, body: unknown) => {
        const response = await fetch(`${served.url}/card/v5`, {
          method: 'POST',
          headers: {
            authorization: `Service ${token}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        return { status: response.status, code: (JSON.parse(text) as { code?: string }).code };
      };
      const honest = Array.from({ length: 600 }, (_, i) => makeCard(`burst-${i}`));
      const poisoned = NOT_TEXT.flatMap(([json, identity], i) =>
        Array.from({ length: 10 }, (_, j) => ({
          identity,
          card: cardOfText(json, 1_700_000_000 + i * 100 + j),
        })),
      );
      // Tokens first, signed with the server's app key read once, then the burst.
      const appKey = parsePrivateKey(
        served.store === undefined
          ? readFileSync(served.paths.appKey, 'utf8')
          : ((
              await sql<{ pem: string }>(
                served.store,
                'SELECT pem FROM cards_keys WHERE name = $1',
                [APP_KEY_NAME],
              )
            )[0]?.pem ?? ''),
      );
      const bodies: [string, unknown][] = [
        ...honest.map((card, i): [string, unknown] => [testToken(appKey, `burst-${i}`), card.raw]),
        ...poisoned.map(({ identity, card }): [string, unknown] => [
          testToken(appKey, identity),
          card.raw,
        ]),
      ];
      const answers = await Promise.all(bodies.map(([token, body]) => post(token, body)));
      const tally = (list: { status: number; code?: string | undefined }[]) => {
        const counts: Record<string, number> = {};
        for (const { status, code } of list) {
          const key = status < 300 ? String(status) : `${status} ${code}`;
          counts[key] = (counts[key] ?? 0) + 1;
        }
        return counts;
      };
      assert.deepEqual(tally(answers.slice(0, 600)), { 201: 600 });
      assert.deepEqual(tally(answers.slice(600)), { '400 40091': poisoned.length });
      const info = (await (await fetch(`${served.url}/_cards/info`)).json()) as { cards: number };
      assert.equal(info.cards, 600);
    });
  });
}
