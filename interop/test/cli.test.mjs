// The project's own CLI and the stock client agree on what a valid card is:
// a card made by the stock client verifies with `cards inspect`; a card made by
// `cards build` is accepted by the server and verified by the stock client; and the CLI's
// stock-format tokens (`cards jwt --compat virgil --app-config FILE`) work for both.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CardManager, Jwt, ModelSigner, RawSignedModel, VirgilCardVerifier } from 'virgil-sdk';
import { describeRun, REPO_ROOT, runCards, SANDBOX } from '../lib/cli.mjs';
import { startServer } from '../lib/server.mjs';
import {
  cardCrypto,
  exportPublicKey,
  makeApp,
  makeCardManager,
  uniqueIdentity,
  virgilCrypto,
} from '../lib/stock.mjs';

const app = makeApp();
let server;
let appConfig; // the vendor CLI's app credentials file

before(async () => {
  server = await startServer({
    jwtKeys: [app.publicKeyBase64],
    appId: app.appId,
    appKeyId: app.appKeyId,
  });
  appConfig = join(SANDBOX, 'app.json');
  writeFileSync(
    appConfig,
    JSON.stringify({ APP_ID: app.appId, APP_KEY_ID: app.appKeyId, APP_KEY: app.privateKeyBase64 }),
  );
});
after(async () => {
  await server?.stop();
});

const managerFor = (identity) =>
  makeCardManager({
    url: server.url,
    serviceKey: server.serviceKey,
    getJwt: () => app.token(identity),
  });

/** Runs the CLI and parses its one JSON document; fails with the run's output otherwise. */
async function cardsJson(args, options) {
  const run = await runCards([...args, '--json'], options);
  let json;
  try {
    json = JSON.parse(run.stdout);
  } catch {
    assert.fail(`not one JSON document on stdout: ${describeRun(args, run)}`);
  }
  return { run, json, describe: describeRun(args, run) };
}

/** Writes a stock key pair's private half as the vendor stores it (base64 DER PKCS#8). */
function keyFile(name, keyPair) {
  const file = join(SANDBOX, `${name}-${Math.random().toString(16).slice(2)}.key`);
  writeFileSync(file, virgilCrypto.exportPrivateKey(keyPair.privateKey).toString('base64'));
  return file;
}

const verdicts = (json) => Object.fromEntries(json.signatures.map((s) => [s.signer, s.status]));

describe('cards inspect checks cards made by the stock client', () => {
  test('a published stock card (self, "app" with extra snapshot, "virgil")', async () => {
    const identity = uniqueIdentity('alice');
    const manager = managerFor(identity);
    const keyPair = virgilCrypto.generateKeys();
    const appSigner = virgilCrypto.generateKeys();
    const raw = manager.generateRawCard({
      identity,
      privateKey: keyPair.privateKey,
      publicKey: keyPair.publicKey,
      extraFields: { device: 'laptop' },
    });
    new ModelSigner(cardCrypto).sign({
      model: raw,
      signerPrivateKey: appSigner.privateKey,
      signer: 'app',
      extraFields: { role: 'member' },
    });
    const card = await manager.publishRawCard(raw);
    const wire = JSON.stringify(manager.exportCardAsJson(card));
    const trustApp = `app=${exportPublicKey(appSigner.publicKey)}`;

    const args = ['inspect', '-', '--compat', 'virgil', '--service-key', server.serviceKey];
    const { run, json, describe } = await cardsJson([...args, '--trust', trustApp], {
      input: wire,
    });
    assert.equal(run.status, 0, describe);
    assert.equal(json.ok, true, describe);
    assert.equal(json.id, card.id);
    assert.equal(json.snapshot.identity, identity);
    assert.deepEqual(verdicts(json), { self: 'valid', app: 'valid', virgil: 'valid' }, describe);
    assert.deepEqual(json.violations, []);

    // the same card against a service key that did not sign it: verification fails, exit 5
    const stranger = exportPublicKey(virgilCrypto.generateKeys().publicKey);
    const wrong = await cardsJson(
      ['inspect', '-', '--compat', 'virgil', '--service-key', stranger, '--trust', trustApp],
      { input: wire },
    );
    assert.equal(wrong.run.status, 5, wrong.describe);
    assert.equal(wrong.json.ok, false);
    assert.equal(verdicts(wrong.json).virgil, 'invalid', wrong.describe);
  });

  test('a stock card fetched by id, with stock tokens from --app-config', async () => {
    const identity = uniqueIdentity('bob');
    const keyPair = virgilCrypto.generateKeys();
    const card = await managerFor(identity).publishCard({ identity, ...keyPair });
    const { run, json, describe } = await cardsJson([
      'inspect',
      card.id,
      '--url',
      server.url,
      '--compat',
      'virgil',
      '--app-config',
      appConfig,
      '--service-key',
      server.serviceKey,
    ]);
    assert.equal(run.status, 0, describe);
    assert.equal(json.ok, true, describe);
    assert.equal(json.id, card.id);
    assert.deepEqual(verdicts(json), { self: 'valid', virgil: 'valid' }, describe);
  });

  test('the stock-client fixture cards (never published) verify offline', async () => {
    const fixtures = JSON.parse(
      readFileSync(join(REPO_ROOT, 'fixtures', 'stock-client-cards.json'), 'utf8'),
    );
    for (const fixture of fixtures.cards) {
      const trust = Object.entries(fixture.signer_keys)
        .filter(([signer]) => signer !== 'self')
        .flatMap(([signer, key]) => ['--trust', `${signer}=${key}`]);
      const { run, json, describe } = await cardsJson(['inspect', '-', ...trust], {
        input: JSON.stringify(fixture.card),
      });
      assert.equal(run.status, 0, `${fixture.name}: ${describe}`);
      assert.equal(json.id, fixture.card_id, fixture.name);
      for (const signer of Object.keys(fixture.signer_keys)) {
        assert.equal(verdicts(json)[signer], 'valid', `${fixture.name}/${signer}: ${describe}`);
      }
    }
  });
});

describe('cards build makes cards the server accepts and the stock client verifies', () => {
  test('self + "app" signer with extra snapshots; then a replacement with --previous', async () => {
    const identity = uniqueIdentity('carol');
    const owner = virgilCrypto.generateKeys();
    const appSigner = virgilCrypto.generateKeys();
    const build = await cardsJson([
      'build',
      '--identity',
      identity,
      '--key',
      keyFile('owner', owner),
      '--signer',
      `app=${keyFile('app', appSigner)}`,
      '--extra',
      '{"device":"phone"}',
      '--extra',
      'app={"role":"admin"}',
    ]);
    assert.equal(build.run.status, 0, build.describe);
    const wire = build.json.card ?? build.json;
    const raw = RawSignedModel.fromJson(wire);

    // offline, with the stock verifier: the self signature and the "app" signature
    const offline = new CardManager({
      cardCrypto,
      apiUrl: server.url,
      accessTokenProvider: { getToken: () => Promise.reject(new Error('offline')) },
      cardVerifier: new VirgilCardVerifier(cardCrypto, {
        verifySelfSignature: true,
        verifyVirgilSignature: false,
        whitelists: [[{ signer: 'app', publicKeyBase64: exportPublicKey(appSigner.publicKey) }]],
      }),
    });
    const imported = offline.importCard(raw);
    assert.equal(imported.identity, identity);
    assert.equal(exportPublicKey(imported.publicKey), exportPublicKey(owner.publicKey));
    if (build.json.id !== undefined) assert.equal(imported.id, build.json.id);
    const extras = Object.fromEntries(imported.signatures.map((s) => [s.signer, s.extraFields]));
    assert.deepEqual(extras, { self: { device: 'phone' }, app: { role: 'admin' } });

    // published with the stock client: accepted, and the service signature verifies
    const manager = managerFor(identity);
    const published = await manager.publishRawCard(raw);
    assert.equal(published.id, imported.id);
    assert.deepEqual(published.signatures.map((s) => s.signer).sort(), ['app', 'self', 'virgil']);
    const got = await manager.getCard(imported.id);
    assert.equal(got.isOutdated, false);

    // a replacement built by the CLI with a new key
    const next = virgilCrypto.generateKeys();
    const rebuild = await cardsJson([
      'build',
      '--identity',
      identity,
      '--key',
      keyFile('next', next),
      '--previous',
      imported.id,
    ]);
    assert.equal(rebuild.run.status, 0, rebuild.describe);
    const replacement = await manager.publishRawCard(
      RawSignedModel.fromJson(rebuild.json.card ?? rebuild.json),
    );
    assert.equal(replacement.previousCardId, imported.id);
    assert.equal((await manager.getCard(imported.id)).isOutdated, true);
    const [head] = await manager.searchCards(identity);
    assert.equal(head.id, replacement.id);
    assert.equal(head.previousCard?.id, imported.id);
  });

  test('plain `cards build` output (no --json) is the wire JSON the stock client imports', async () => {
    const identity = uniqueIdentity('dan');
    const owner = virgilCrypto.generateKeys();
    const args = ['build', '--identity', identity, '--key', keyFile('dan', owner)];
    const run = await runCards(args);
    assert.equal(run.status, 0, describeRun(args, run));
    const card = await managerFor(identity).publishRawCard(
      RawSignedModel.fromJson(JSON.parse(run.stdout)),
    );
    assert.equal(card.identity, identity);
  });
});

describe('cards jwt --compat virgil --app-config', () => {
  test('mints a stock token the stock client parses and the server accepts', async () => {
    const identity = uniqueIdentity('erin');
    const args = ['jwt', '--identity', identity, '--compat', 'virgil', '--app-config', appConfig];
    const run = await runCards(args);
    assert.equal(run.status, 0, describeRun(args, run));
    const token = run.stdout.trim();
    const jwt = Jwt.fromString(token);
    assert.equal(jwt.identity(), identity);
    assert.equal(jwt.appId(), app.appId);
    assert.equal(jwt.header.alg, 'VEDS512');
    assert.equal(jwt.header.kid, app.appKeyId);
    assert.equal(jwt.isExpired(), false);

    const manager = makeCardManager({
      url: server.url,
      serviceKey: server.serviceKey,
      getJwt: () => token,
    });
    const keyPair = virgilCrypto.generateKeys();
    const card = await manager.publishCard({ identity, ...keyPair });
    assert.equal(card.identity, identity);
  });
});
