/**
 * The store file's line reader (src/store/json/store-file.ts, stored-line.ts `storedLineAt`)
 * against JSON itself: whatever a file holds, opening it gives the cards `JSON.parse` finds in
 * it, field for field, or refuses it with STORE_CORRUPT where those are not a store's cards. The
 * file is read in 4 MiB chunks cut after their last '\n' (line-reader.ts), so the generated
 * files put a card line anywhere around a chunk's end, or make one line longer than a chunk;
 * identities carry raw and escaped multi-byte UTF-8, quotes and backslashes. The one-card-per-
 * line shape the store writes takes the line path (StoredLine); a file edited by hand (CRLF,
 * spaces, keys reordered or unknown, a comma moved or doubled, a torn end) gives JSON.parse's
 * cards too, or STORE_CORRUPT, never some of its cards.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { StoreFile } from '../../src/store/json/store-file.js';
import { readStoredCard, serializeCard } from '../../src/store/record.js';
import type { StoredCard } from '../../src/store/store.js';
import { StoredLine } from '../../src/store/stored-line.js';
import { codeOf } from '../helpers/code-of.js';

const dir = mkdtempSync(join(tmpdir(), 'cards-store-chunks-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const path = join(dir, 'cards.json');

/** line-reader.ts's chunk. */
const CHUNK = 4 * 1024 * 1024;
const HEADER = '{\n"format": "cards-store",\n"version": 1,\n"cards": [\n';
const FOOTER = ']\n}\n';

const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
const base64 = fc.stringMatching(/^[A-Za-z0-9+/]{1,24}={0,2}$/);
const identity = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.string({ unit: 'binary', maxLength: 10 }),
  fc.constantFrom('a"b', 'a\\b', '\\u0041', 'é€😀', 'x\u2028y', 'tab\t', '\u0000'),
);
// Some are not records the store takes (an empty identity, a revoking card naming no card):
// those are refused on every path.
const card: fc.Arbitrary<StoredCard> = fc.record({
  id: hex,
  identity,
  previous_card_id: fc.option(hex, { nil: undefined }),
  revoking: fc.option(fc.constant(true as const), { nil: undefined }),
  content_snapshot: base64,
  signatures: fc.array(
    fc.record(
      {
        signer: fc.constantFrom('self', 'service', 'a"b'),
        signature: base64,
        snapshot: base64,
      },
      { requiredKeys: ['signer', 'signature'] },
    ),
    { maxLength: 2 },
  ),
});

/** How one card's line is written: as the store writes it, or as a person might edit it. */
const LINE_FORMS: readonly ((line: string) => string)[] = [
  (line) => line,
  (line) =>
    line.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  (line) => {
    const { id, ...rest } = JSON.parse(line) as Record<string, unknown>;
    return JSON.stringify({ ...rest, id });
  },
  (line) => `${line.slice(0, -1)},"note":1}`,
  (line) => line.replace('"identity":', '"identity": '),
];

/** What is done to the whole file. */
const FILE_EDITS: readonly ((text: string) => string)[] = [
  (text) => text,
  (text) => text.replace(/\n/g, '\r\n'),
  (text) => text.replace('},\n{', '},,\n{'),
  (text) => text.replace('},\n{', '}\n{'),
  (text) => text.replace('},\n{', '}\n,{'),
  (text) => text.replace(/}\n]/, '},\n]'),
  (text) => `\n \n${text}`,
  (text) => `${text}\n \n`,
  (text) => text.replace('"version": 1', '"version":  1'),
];

/** The cards JSON.parse finds in `text`, as the store holds them; undefined: not a store. */
function expected(text: string): StoredCard[] | undefined {
  if (text.trim() === '') return [];
  try {
    const data = JSON.parse(text) as { format?: unknown; version?: unknown; cards?: unknown };
    if (data.format !== 'cards-store' || data.version !== 1 || !Array.isArray(data.cards))
      return undefined;
    return data.cards.map((c: unknown, i) => readStoredCard(c, `card #${i + 1}`));
  } catch {
    return undefined;
  }
}

const fields = (c: StoredCard) => ({
  id: c.id,
  identity: c.identity,
  previous_card_id: c.previous_card_id,
  revoking: c.revoking,
  content_snapshot: c.content_snapshot,
  signatures: c.signatures,
  wire: JSON.stringify({ content_snapshot: c.content_snapshot, signatures: c.signatures }),
});

async function opensAsJson(text: string, canonical: boolean): Promise<void> {
  writeFileSync(path, text);
  const want = expected(text);
  const file = new StoreFile(path);
  if (want === undefined) {
    assert.equal(await codeOf(() => file.read()), 'STORE_CORRUPT');
    return;
  }
  const got = await file.read();
  assert.deepEqual(got.map(fields), want.map(fields));
  if (canonical && got.length > 0) {
    assert.ok(
      got.every((c) => c instanceof StoredLine),
      'the shape the store writes is read line by line',
    );
    assert.deepEqual(
      got.map((c) => (c as StoredLine).wireJson),
      want.map((c) => fields(c).wire),
    );
  }
}

/** Whether `text` is `written`, give or take blank lines before it (a new store's file). */
const asWritten = (text: string, written: string): boolean =>
  text.replace(/^\s*\n/, '') === written;

/** A store file holding `lines` as the store writes them, then edited by `edit`. */
const fileOf = (lines: string[], edit: (text: string) => string = (text) => text): string =>
  edit(`${HEADER}${lines.join(',\n')}${lines.length ? '\n' : ''}${FOOTER}`);

test('a store file opens as JSON.parse reads it, however it was written or edited', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(card, fc.nat(LINE_FORMS.length - 1)), { maxLength: 4 }),
      fc.nat(FILE_EDITS.length - 1),
      fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
      async (cards, edit, tornAt) => {
        const lines = cards.map(([c, form]) =>
          (LINE_FORMS[form] as (l: string) => string)(serializeCard(c)),
        );
        let text = fileOf(lines, FILE_EDITS[edit] as (t: string) => string);
        if (tornAt !== undefined) text = text.slice(0, Math.floor(text.length * tornAt));
        // The shape the store writes, whatever the edits were meant to do.
        await opensAsJson(text, asWritten(text, fileOf(cards.map(([c]) => serializeCard(c)))));
      },
    ),
    { numRuns: 400 },
  );
});

/** A filler card whose line is `bytes` long (its identity padded). */
const filler = (bytes: number): string => {
  const empty = serializeCard({
    id: 'f'.repeat(64),
    identity: '',
    content_snapshot: 'QQ==',
    signatures: [],
  });
  return empty.replace('"identity":""', `"identity":"${'x'.repeat(bytes - empty.length)}"`);
};

test('a card line anywhere around a 4 MiB chunk end, or longer than a chunk, opens whole', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(card, { minLength: 1, maxLength: 2 }),
      fc.oneof(fc.constantFrom(-2, -1, 0, 1, 2), fc.integer({ min: -300, max: 300 })),
      fc.boolean(),
      fc.nat(FILE_EDITS.length - 1),
      async (cards, shift, long, edit) => {
        const lines = cards.map(serializeCard);
        const first = Buffer.byteLength(lines[0] as string);
        // The first card's line ends `shift` bytes from the first chunk's end (its '\n' at
        // CHUNK + shift - 1 when `shift` > 0), behind fillers of 64 KiB and one that fits.
        const room = CHUNK + shift - first - HEADER.length;
        const fillers: string[] = [];
        if (long) fillers.push(filler(CHUNK + 100 + shift));
        else {
          let left = room;
          while (left > 70_000) {
            fillers.push(filler(65_536));
            left -= 65_536 + 2;
          }
          fillers.push(filler(left - 2));
        }
        const text = fileOf([...fillers, ...lines], FILE_EDITS[edit] as (t: string) => string);
        const canonical = asWritten(text, fileOf([...fillers, ...lines]));
        if (!long && edit === 0)
          assert.equal(Buffer.from(text).indexOf(lines[0] as string) + first, CHUNK + shift);
        await opensAsJson(text, canonical);
      },
    ),
    { numRuns: 40 },
  );
});
