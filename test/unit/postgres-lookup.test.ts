/**
 * The PostgreSQL store's shared lookups (src/store/postgres/lookup.ts), with a fake query: keys
 * asked in one turn share one query, each caller gets the rows of its own keys in order, at most
 * `maxInFlight` queries are out, a lookup never joins a query already sent (it would miss what
 * was committed after that query began), and a failed query fails exactly its callers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Lookup } from '../../src/store/postgres/lookup.js';

interface Row {
  key: string;
  n: number;
}

function fakeQuery(): {
  sent: string[][];
  release(i: number, rows?: Row[] | Error): void;
  run(keys: string[]): Promise<Row[]>;
} {
  const sent: string[][] = [];
  const pending: ((rows: Row[] | Error) => void)[] = [];
  return {
    sent,
    run(keys) {
      sent.push(keys);
      return new Promise<Row[]>((resolve, reject) =>
        pending.push((rows) => (rows instanceof Error ? reject(rows) : resolve(rows))),
      );
    },
    release(i, rows) {
      const keys = sent[i] as string[];
      (pending[i] as (rows: Row[] | Error) => void)(
        rows ?? keys.flatMap((key) => [1, 2].map((n) => ({ key, n }))),
      );
    },
  };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('postgres lookups', () => {
  test('keys asked together share a query; a later one waits for a new query', async () => {
    const q = fakeQuery();
    const lookup = new Lookup<string, Row>({
      run: (keys) => q.run(keys),
      keyOf: (row) => row.key,
      maxInFlight: 1,
      maxKeys: 100,
    });
    const a = lookup.rows(['a']);
    const bc = lookup.rows(['c', 'b']);
    await turn();
    assert.deepEqual(q.sent, [['a', 'c', 'b']]);
    const late = lookup.rows(['a']); // asked after the first query went out: must not join it
    await turn();
    assert.equal(q.sent.length, 1, 'one query out at most');
    q.release(0);
    assert.deepEqual(await a, [
      { key: 'a', n: 1 },
      { key: 'a', n: 2 },
    ]);
    assert.deepEqual(
      (await bc).map((row) => `${row.key}${row.n}`),
      ['c1', 'c2', 'b1', 'b2'],
    );
    await turn();
    assert.deepEqual(q.sent[1], ['a']);
    q.release(1, [{ key: 'a', n: 9 }]);
    assert.deepEqual(await late, [{ key: 'a', n: 9 }]);
  });

  test('maxKeys splits queries; a failure fails only its own callers', async () => {
    const q = fakeQuery();
    const lookup = new Lookup<string, Row>({
      run: (keys) => q.run(keys),
      keyOf: (row) => row.key,
      maxInFlight: 2,
      maxKeys: 2,
    });
    const first = lookup.rows(['a', 'b']);
    const second = lookup.rows(['c']);
    await turn();
    assert.deepEqual(q.sent, [['a', 'b'], ['c']]);
    q.release(0, new Error('database away'));
    q.release(1);
    await assert.rejects(first, /database away/);
    assert.equal((await second).length, 2);
  });
});
