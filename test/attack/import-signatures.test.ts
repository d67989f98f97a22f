/**
 * An import stores only signature lists a card route would have stored: what the client sent,
 * as create (or revoke) checks it with the core's parseSignatures, then the service's own
 * signature, last (docs/http.md "Routes", import). Every list below was stored by
 * `POST /_cards/import` though no create could make it: a stock client reading such a card
 * (a signature that is not base64, a signer of 5,000 bytes) may fail on it and on every search
 * of its identity. Each is refused with IMPORT_INVALID naming its line, nothing stored; the lists
 * the card routes make (eight entries and the service's, a revocation by id's service signature
 * alone) still import.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RawSignature } from '../../src/core/card.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { makeCard, makeRevocation } from '../http/card-kit.js';
import { call } from '../reliability/kit.js';

const SIG =
  'MFEwDQYJYIZIAWUDBAIDBQAEQDCQpvZDYP3DXqFil/ZlTkG47wFHLIWmEmpQcH3ckJMw9GRoooHhGegIxGNmj6RlLSnaV0qvsaXl5kygCNOjvQQ=';
const SERVICE: RawSignature = { signer: 'service', signature: SIG };
const other = (signer: string, extra: Partial<RawSignature> = {}): RawSignature => ({
  signer,
  signature: SIG,
  ...extra,
});

test('an import line whose signature list no card route makes is refused, nothing stored', async (t) => {
  const server = await startInProcess({ args: ['--quiet', '--no-log'] });
  t.after(() => server.dispose());
  const importLine = async (record: object) => {
    const response = await fetch(`${server.url}/_cards/import?append=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: `${JSON.stringify(record)}\n`,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const refusals: [string, (self: RawSignature[]) => RawSignature[]][] = [
    ['nine entries', (self) => [...self, ...'abcdefgh'.split('').map((s) => other(s)), SERVICE]],
    ['self twice', (self) => [...self, ...self, SERVICE]],
    ['no service signature', (self) => self],
    ['two service signatures', (self) => [...self, SERVICE, SERVICE]],
    ['a service signature with a snapshot', (self) => [...self, { ...SERVICE, snapshot: 'AAAA' }]],
    [
      'an extra snapshot of 5,000 bytes',
      (self) => [
        ...self,
        other('app', { snapshot: Buffer.alloc(5000, 1).toString('base64') }),
        SERVICE,
      ],
    ],
    ['a signer of 5,000 bytes', (self) => [...self, other('y'.repeat(5000)), SERVICE]],
    [
      'a service signer of 5,000 bytes',
      (self) => [...self, { ...SERVICE, signer: 's'.repeat(5000) }],
    ],
    [
      'a signature that is not base64',
      (self) => [...self, other('app', { signature: '!!' }), SERVICE],
    ],
    ['an empty signer', (self) => [...self, other(''), SERVICE]],
    ['an empty service signature', (self) => [...self, { ...SERVICE, signature: '' }]],
  ];
  for (const [what, list] of refusals) {
    const card = makeCard('imported');
    const refused = await importLine({
      id: card.id,
      identity: 'imported',
      content_snapshot: card.raw.content_snapshot,
      signatures: list(card.raw.signatures as RawSignature[]),
    });
    assert.equal(refused.status, 400, `${what}: ${JSON.stringify(refused.body)}`);
    assert.equal(refused.body.code, '30102', what);
    assert.match(String(refused.body.message), /^Import line 1 \(card [0-9a-f]{64}\): its /, what);
    assert.equal((await call(server, 'GET', `/card/v5/${card.id}`)).status, 404, what);
  }
  // What the card routes store imports: eight entries then the service's; a revoking card with
  // the service's signature alone (revoke by id).
  const full = makeCard('imported');
  const eight = [
    ...(full.raw.signatures as RawSignature[]),
    ...'abcdefg'.split('').map((s) => other(s)),
    SERVICE,
  ];
  const stored = await importLine({
    id: full.id,
    identity: 'imported',
    content_snapshot: full.raw.content_snapshot,
    signatures: eight,
  });
  assert.equal(stored.status, 200, JSON.stringify(stored.body));
  const revoking = makeRevocation('imported', full.id);
  const revoked = await importLine({
    id: revoking.id,
    identity: 'imported',
    previous_card_id: full.id,
    revoking: true,
    content_snapshot: revoking.raw.content_snapshot,
    signatures: [SERVICE],
  });
  assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
});
