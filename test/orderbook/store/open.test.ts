/** openEventStore picks the store from the configuration. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventStore } from '../../../src/orderbook/store/index.js';

describe('openEventStore', function () {
  it('opens SQLite at DATA_DIR/events.sqlite, creating the directory', async function () {
    const root = mkdtempSync(join(tmpdir(), 'ethgate-open-'));
    try {
      const dataDir = join(root, 'nested', 'data');
      const store = await openEventStore({ dataDir });
      try {
        assert.ok(store.kind === 'sqlite');
        assert.ok(existsSync(join(dataDir, 'events.sqlite')));
        await store.append('s', [{ type: 'A', schemaVersion: 1, data: {} }], 'no_stream');
        // The shared connection sees the store's table.
        assert.deepEqual(store.db.prepare('SELECT stream_id FROM events').pluck().all(), ['s']);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('syncs the WAL SQLite writes now, also after SQLite removed and made it again', async function () {
    const root = mkdtempSync(join(tmpdir(), 'ethgate-open-'));
    // What this process has open of the store's WAL: a path, with " (deleted)" once removed.
    const openWal = () =>
      readdirSync('/proc/self/fd')
        .map((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`);
          } catch {
            return '';
          }
        })
        .filter((target) => target.startsWith(join(root, 'events.sqlite-wal')));
    try {
      const store = await openEventStore({ dataDir: root });
      try {
        assert.ok(store.kind === 'sqlite');
        await store.append('s', [{ type: 'A', schemaVersion: 1, data: {} }], 'no_stream');
        // Leaving WAL mode checkpoints the WAL and removes it; coming back makes a new file.
        assert.equal(store.db.pragma('journal_mode = DELETE', { simple: true }), 'delete');
        assert.equal(existsSync(join(root, 'events.sqlite-wal')), false);
        assert.equal(store.db.pragma('journal_mode = WAL', { simple: true }), 'wal');
        await store.append('s', [{ type: 'A', schemaVersion: 1, data: {} }], 1);
        assert.equal(await store.head(), 2);
        // SQLite's own descriptor and the store's, both on the new file; none left on the removed one.
        const wal = openWal();
        assert.ok(wal.length >= 2, `open WAL descriptors: ${wal.join(', ')}`);
        assert.deepEqual(wal.filter((target) => target.endsWith('(deleted)')), []);
      } finally {
        await store.close();
      }
      assert.deepEqual(openWal(), []);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('opens PostgreSQL in the given schema when a database URL is set', async function () {
    const databaseUrl = process.env.DATABASE_URL;
    if (!databaseUrl) this.skip();
    const pgSchema = `es_open_${process.pid}_${Date.now().toString(36)}`;
    const store = await openEventStore({ dataDir: join(tmpdir(), 'unused'), databaseUrl, pgSchema });
    try {
      assert.ok(store.kind === 'postgres');
      await store.append('s', [{ type: 'A', schemaVersion: 1, data: { x: 1 } }], 'no_stream');
      // The shared pool reaches the tables in the chosen schema.
      const { rows } = await store.pool.query(`SELECT stream_id, data FROM "${pgSchema}".events`);
      assert.deepEqual(rows, [{ stream_id: 's', data: { x: 1 } }]);
    } finally {
      if (store.kind === 'postgres') await store.pool.query(`DROP SCHEMA "${pgSchema}" CASCADE`);
      await store.close();
    }
  });
});
