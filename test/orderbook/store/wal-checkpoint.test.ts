/**
 * The SQLite log's WAL is checkpointed by a worker thread (src/orderbook/store/wal-checkpointer.ts), not
 * inside a commit on the event loop: pages written well below SQLite's own checkpoint threshold reach the
 * database file by themselves within moments, and closing the store still leaves no WAL behind.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { SqliteEventStore } from '../../../src/orderbook/store/sqlite.js';
import { until } from '../../support/wait.js';

describe('SQLite log: WAL checkpoints on a worker thread', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'ethgate-wal-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('moves committed pages into the database file without a commit doing it, and leaves no WAL on close', async () => {
    const path = join(dir, 'log.sqlite');
    const store = new SqliteEventStore(path);
    try {
      const before = statSync(path).size;
      const data = { note: 'x'.repeat(2_000) };
      for (let i = 0; i < 20; i++) {
        await store.append(`s-${i}`, Array.from({ length: 20 }, () => ({ type: 'Noted', schemaVersion: 1, data })), 'any');
      }
      // About 400 events of 2 KB: some fifty 16 KiB pages in the WAL, far below the 10,000 pages at which a
      // commit would checkpoint; only the worker moves them.
      assert.ok(statSync(`${path}-wal`).size > 50 * 16_384, 'the pages were written to the WAL');
      await until(() => statSync(path).size > before + 40 * 16_384, 'the database file to receive the pages', 5_000);
      assert.equal((await store.readAll(0, 1000)).length, 400);
    } finally {
      await store.close();
    }
    assert.equal(existsSync(`${path}-wal`), false, 'the last connection closed checkpoints and removes the WAL');
    const reopened = new SqliteEventStore(path);
    try {
      assert.equal(await reopened.head(), 400);
    } finally {
      await reopened.close();
    }
  });

  it('a process whose last task is closing the store goes on after the close', () => {
    const store = new URL('../../../src/orderbook/store/sqlite.js', import.meta.url).href;
    const script = `
      import { SqliteEventStore } from ${JSON.stringify(store)};
      const store = new SqliteEventStore(${JSON.stringify(join(dir, 'log.sqlite'))});
      await store.append('s', [{ type: 'Noted', schemaVersion: 1, data: {} }], 'any');
      await store.close();
      console.log('closed');`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(out.trim(), 'closed');
  });
});
