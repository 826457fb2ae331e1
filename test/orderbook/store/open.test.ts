/** openEventStore picks the store from the configuration. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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
