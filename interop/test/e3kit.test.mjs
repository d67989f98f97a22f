// @virgilsecurity/e3kit-node 2 (the vendor's end-to-end encryption kit, which bundles its own
// virgil-sdk) against `cards serve --compat virgil`: register, findUsers, rotatePrivateKey,
// unregister; and the flows that need Keyknox and Pythia besides the cards: private-key backup
// with a password (Pythia brainkey + Keyknox v1), restore on a new device, wrong password,
// change of password, reset, and a group chat (tickets in Keyknox v2). The server runs with its
// default brainkey throttle, as the cloud does: e3kit's own retry after 60007 is part of what
// is checked, as is its retry after a throttling fault (`cards faults add`) on the brainkey.
// On Node 20 e3kit-node loads only without the built-in fetch: `npm test` runs this under
// `node --no-experimental-fetch`.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cardsAt } from '../lib/cli.mjs';
import { startServer } from '../lib/server.mjs';
import { makeApp, makeCardManager, rejection, uniqueIdentity } from '../lib/stock.mjs';

if (typeof globalThis.fetch === 'function') {
  throw new Error('e3kit-node needs Node 20 run with --no-experimental-fetch (`npm test` does)');
}
const { EThree } = await import('@virgilsecurity/e3kit-node');

const app = makeApp();
const dirs = [];
let server;

before(async () => {
  server = await startServer({ jwtKeys: [app.publicKeyBase64] });
});
after(async () => {
  await server?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** One device of `identity`: its own key storage in a temporary directory. */
async function device(identity) {
  const dir = mkdtempSync(join(tmpdir(), 'cards-e3kit-'));
  dirs.push(dir);
  return EThree.initialize(async () => app.token(identity).toString(), {
    apiUrl: server.url,
    storageName: join(dir, 'keys'),
    groupStorageName: join(dir, 'groups'),
  });
}

/** The stock CardManager with the verifier of docs/stock-sdk.md, to check what e3kit left on the server. */
const cardManager = (identity) =>
  makeCardManager({
    url: server.url,
    serviceKey: server.serviceKey,
    getJwt: () => app.token(identity),
  });

describe('e3kit-node against cards serve --compat virgil', () => {
  const alice = uniqueIdentity('alice');
  const bob = uniqueIdentity('bob');
  let aliceE3;
  let bobE3;
  let aliceFirstCard;

  test('register', async () => {
    aliceE3 = await device(alice);
    bobE3 = await device(bob);
    assert.equal(aliceE3.identity, alice);
    await aliceE3.register();
    await bobE3.register();
    assert.equal(await aliceE3.hasLocalPrivateKey(), true);

    // what e3kit published is a card the stock CardManager verifies with the service key
    const cards = await cardManager(alice).searchCards(alice);
    assert.equal(cards.length, 1);
    assert.equal(cards[0].identity, alice);
    aliceFirstCard = cards[0];
  });

  test('register again from a second device: IdentityAlreadyExistsError', async () => {
    const second = await device(alice);
    const err = await rejection(second.register());
    assert.equal(err.name, 'IdentityAlreadyExistsError', String(err));
  });

  test('findUsers: one and many; the found keys encrypt and verify', async () => {
    const bobCard = await aliceE3.findUsers(bob);
    assert.equal(bobCard.identity, bob);
    const both = await bobE3.findUsers([alice, bob]);
    assert.deepEqual(Object.keys(both).sort(), [alice, bob].sort());
    assert.equal(both[alice].id, aliceFirstCard.id);

    const message = 'hello from alice';
    const encrypted = await aliceE3.authEncrypt(message, bobCard);
    assert.equal(await bobE3.authDecrypt(encrypted, both[alice]), message);

    const missing = uniqueIdentity('nobody');
    const err = await rejection(aliceE3.findUsers([bob, missing]));
    assert.equal(err.name, 'UsersNotFoundError', String(err));
    assert.deepEqual(err.identities, [missing]);
  });

  test('rotatePrivateKey: a new card replaces the old one', async () => {
    await aliceE3.cleanup();
    assert.equal(await aliceE3.hasLocalPrivateKey(), false);
    await aliceE3.rotatePrivateKey();
    assert.equal(await aliceE3.hasLocalPrivateKey(), true);

    const card = await bobE3.findUsers(alice);
    assert.notEqual(card.id, aliceFirstCard.id);
    assert.equal(card.previousCardId, aliceFirstCard.id);

    const manager = cardManager(bob);
    assert.equal((await manager.getCard(aliceFirstCard.id)).isOutdated, true);
    const [head] = await manager.searchCards(alice);
    assert.equal(head.id, card.id);
    assert.equal(head.previousCard?.id, aliceFirstCard.id);

    // the rotated key works end to end
    const encrypted = await bobE3.authEncrypt('after rotation', card);
    assert.equal(
      await aliceE3.authDecrypt(encrypted, await aliceE3.findUsers(bob)),
      'after rotation',
    );
  });

  test('unregister: then findUsers fails with UsersNotFoundError', async () => {
    const [head] = await cardManager(alice).searchCards(alice);
    await aliceE3.unregister();
    assert.equal(await aliceE3.hasLocalPrivateKey(), false);

    const err = await rejection(bobE3.findUsers(alice));
    assert.equal(err.name, 'UsersNotFoundError', String(err));
    assert.deepEqual(err.identities, [alice]);
    // revoked, not deleted: still fetchable by id
    assert.equal((await cardManager(bob).getCard(head.id)).isOutdated, true);
    // bob is untouched
    assert.equal((await aliceE3.findUsers(bob)).identity, bob);
  });
});

describe('e3kit-node: private-key backup with a password', () => {
  const alice = uniqueIdentity('alice');
  const bob = uniqueIdentity('bob');
  let first;
  let bobE3;

  test('backup, then restore on a new device: the same key decrypts', async () => {
    first = await device(alice);
    await first.register();
    bobE3 = await device(bob);
    await bobE3.register();
    await first.backupPrivateKey('pa$$word one');
    const encrypted = await bobE3.authEncrypt('for alice', await bobE3.findUsers(alice));

    const second = await device(alice);
    await second.restorePrivateKey('pa$$word one');
    assert.equal(await second.hasLocalPrivateKey(), true);
    assert.equal(await second.authDecrypt(encrypted, await second.findUsers(bob)), 'for alice');
  });

  test('a second backup is refused; a wrong password restores nothing', async () => {
    const again = await rejection(first.backupPrivateKey('pa$$word one'));
    assert.ok(again, 'a backup exists already');
    const third = await device(alice);
    const err = await rejection(third.restorePrivateKey('wrong password'));
    assert.equal(err.name, 'WrongKeyknoxPasswordError', String(err));
    assert.equal(await third.hasLocalPrivateKey(), false);
  });

  test('changePassword: the new one restores, the old one no longer does', async () => {
    await first.changePassword('pa$$word one', 'pa$$word two');
    const fourth = await device(alice);
    const old = await rejection(fourth.restorePrivateKey('pa$$word one'));
    assert.equal(old.name, 'WrongKeyknoxPasswordError', String(old));
    await fourth.restorePrivateKey('pa$$word two');
    assert.equal(await fourth.hasLocalPrivateKey(), true);
  });

  test('resetPrivateKeyBackup: nothing left to restore', async () => {
    await first.resetPrivateKeyBackup();
    const fifth = await device(alice);
    const err = await rejection(fifth.restorePrivateKey('pa$$word two'));
    assert.equal(err.name, 'PrivateKeyNoBackupError', String(err));
    // A new backup after the reset is accepted.
    await first.backupPrivateKey('pa$$word three');
    await fifth.restorePrivateKey('pa$$word three');
    assert.equal(await fifth.hasLocalPrivateKey(), true);
  });
});

describe('e3kit-node: a group chat (tickets in Keyknox v2)', () => {
  const [alice, bob, carol] = ['alice', 'bob', 'carol'].map(uniqueIdentity);
  const e3 = {};
  const groupId = `group-${uniqueIdentity('g')}`;

  test('create, load, add, update, remove, delete', async () => {
    for (const identity of [alice, bob, carol]) {
      e3[identity] = await device(identity);
      await e3[identity].register();
    }
    const cards = await e3[alice].findUsers([bob]);
    const group = await e3[alice].createGroup(groupId, cards);
    const dup = await rejection(e3[alice].createGroup(groupId, cards));
    assert.ok(dup, 'a second group with one id is refused');
    const aliceCard = await e3[bob].findUsers(alice);
    const bobGroup = await e3[bob].loadGroup(groupId, aliceCard);
    const message = await group.encrypt('hello group');
    assert.equal(await bobGroup.decrypt(message, aliceCard), 'hello group');

    await group.add(await e3[alice].findUsers(carol));
    const carolGroup = await e3[carol].loadGroup(groupId, await e3[carol].findUsers(alice));
    await bobGroup.update();
    const second = await group.encrypt('with carol');
    assert.equal(await carolGroup.decrypt(second, aliceCard), 'with carol');
    assert.equal(await bobGroup.decrypt(second, aliceCard), 'with carol');
    assert.deepEqual([...bobGroup.participants].sort(), [alice, bob, carol].sort());

    await group.remove(await e3[alice].findUsers(bob));
    const removed = await rejection(bobGroup.update());
    assert.ok(removed, 'a removed participant cannot update the group');
    const third = await group.encrypt('without bob');
    await carolGroup.update();
    assert.equal(await carolGroup.decrypt(third, aliceCard), 'without bob');

    await e3[alice].deleteGroup(groupId);
    const gone = await rejection(e3[carol].loadGroup(groupId, await e3[carol].findUsers(alice)));
    assert.ok(gone, 'a deleted group cannot be loaded');
  });
});

const cards = (args) => cardsAt(server.url, args);

/** The brainkey requests the journal holds for `identity`, oldest first: [status, fault]. */
async function brainkeys(identity) {
  const args = ['requests', '--route', 'pythiaBrainkey', '--identity', identity, '--json'];
  const { requests } = JSON.parse((await cards(args)).stdout);
  return requests.map((r) => [r.status, r.fault ?? null]).reverse();
}

describe('faults as e3kit-node meets them', () => {
  test('a throttled brainkey: backup and restore succeed after e3kit waits and retries', async () => {
    const alice = uniqueIdentity('alice');
    const throttle = ['faults', 'add', '--route', 'pythiaBrainkey', '--identity', alice];
    throttle.push('--error', 'PYTHIA_THROTTLED', '--count', '1');
    const first = await device(alice);
    await first.register();

    await cards(throttle);
    await first.backupPrivateKey('pa$$word');
    assert.deepEqual(await brainkeys(alice), [
      [429, 'fault 1: PYTHIA_THROTTLED'],
      [200, null],
    ]);

    await cards(throttle);
    const second = await device(alice);
    await second.restorePrivateKey('pa$$word');
    assert.equal(await second.hasLocalPrivateKey(), true);
    const message = await first.authEncrypt('for the new device');
    assert.equal(await second.authDecrypt(message), 'for the new device');
    assert.deepEqual((await brainkeys(alice)).slice(2), [
      [429, 'fault 2: PYTHIA_THROTTLED'],
      [200, null],
    ]);
    const { faults } = JSON.parse((await cards(['faults', 'list', '--json'])).stdout);
    assert.deepEqual(
      faults.map((f) => [f.route, f.error, f.hits, f.remaining]),
      [
        ['pythiaBrainkey', 'PYTHIA_THROTTLED', 1, 0],
        ['pythiaBrainkey', 'PYTHIA_THROTTLED', 1, 0],
      ],
    );
  });
});
