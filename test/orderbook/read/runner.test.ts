import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../src/orderbook/store/sqlite.js';
import { PostgresEventStore } from '../../../src/orderbook/store/postgres.js';
import { SqliteReadModelStore } from '../../../src/orderbook/read/models/sqlite.js';
import { PostgresReadModelStore } from '../../../src/orderbook/read/models/postgres.js';
import { ProjectionRunner, ReadModelsBehind } from '../../../src/orderbook/read/runner.js';
import type { Projection } from '../../../src/orderbook/read/models/types.js';
import { logger } from '../../../src/shared/logger.js';
import { databaseUrl } from '../../support/postgres.js';

/** Counts the events of each stream: small enough to check by hand. */
const counts: Projection<{ events: number }> = {
  name: 'counts',
  version: 1,
  keysOf: (e) => [e.streamId],
  apply: (doc) => ({ events: (doc?.events ?? 0) + 1 }),
  columns: { events: { type: 'integer', of: (d) => d.events } },
};

const event = (n: number) => ({ type: 'Happened', schemaVersion: 1, data: { n } });

describe('projection runner on SQLite', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'runner-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('catches up at start, follows appends, and lets a writer wait for its own events', async () => {
    const path = join(dir, 'events.sqlite');
    let events = new SqliteEventStore(path);
    await events.append('a', [event(1), event(2)], 'no_stream');
    let runner = new ProjectionRunner(events, new SqliteReadModelStore(events.db), [counts], logger, { batchSize: 1 });
    await runner.start();
    assert.equal(runner.position, 2, 'caught up with what was there before start');

    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => events.append(`s${i % 4}`, [event(i)], 'any')));
    const last = Math.max(...results.map((r) => r.position));
    await runner.waitFor(last);
    const rows = await runner.store.find<{ events: number }>('counts', { orderBy: [{ column: 'id' }] });
    assert.deepEqual(rows.map((r) => [r.key, r.doc.events]), [['a', 2], ['s0', 10], ['s1', 10], ['s2', 10], ['s3', 10]]);
    // Read-model steps leave the connection as the event store set it: WAL, synchronous NORMAL (1), the
    // store syncing the WAL itself after each batch's commit.
    assert.equal(events.db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(events.db.pragma('synchronous', { simple: true }), 1);

    // After a restart the checkpoint holds: nothing is applied twice.
    await runner.stop();
    await events.close();
    events = new SqliteEventStore(path);
    runner = new ProjectionRunner(events, new SqliteReadModelStore(events.db), [counts], logger);
    await runner.start();
    assert.equal((await runner.store.get<{ events: number }>('counts', 's0'))?.doc.events, 10);
    await runner.stop();
    await events.close();
  });

  it('rejects waitFor with ReadModelsBehind when the read models do not catch up in time, or stop first', async () => {
    const events = new SqliteEventStore(join(dir, 'stuck.sqlite'));
    // A projection bug: every step over the poisoned event rolls back, so the read models stay before it.
    const stuck: Projection<{ events: number }> = {
      ...counts,
      name: 'stuck',
      apply: (doc, e) => {
        if (e.type === 'Poison') throw new Error('a projection bug');
        return { events: (doc?.events ?? 0) + 1 };
      },
    };
    const runner = new ProjectionRunner(events, new SqliteReadModelStore(events.db), [stuck], logger, { waitMs: 100 });
    try {
      await runner.start();
      const fine = await events.append('a', [event(1)], 'no_stream');
      await runner.waitFor(fine.position);
      const poisoned = await events.append('b', [{ type: 'Poison', schemaVersion: 1, data: {} }], 'no_stream');
      const late = (err: unknown) => err instanceof ReadModelsBehind && err.position === poisoned.position && err.reached === fine.position;
      await assert.rejects(Promise.all([runner.waitFor(poisoned.position), runner.waitFor(poisoned.position)]), late);
      // One waiting when the runner stops is let go too, and a later one is refused at once.
      const waiting = runner.waitFor(poisoned.position);
      await runner.stop();
      await assert.rejects(waiting, (err) => late(err) && /stopped/.test((err as Error).message));
      await assert.rejects(runner.waitFor(poisoned.position), late);
      // What the read models reached is still answered at once.
      await runner.waitFor(fine.position);
    } finally {
      await runner.stop();
      await events.close();
    }
  });
});

describe('projection runner on PostgreSQL, two instances', function () {
  const schema = `runner_${process.pid}_${Date.now() % 100000}`;
  before(function () {
    if (!databaseUrl) this.skip();
  });

  it('shows events appended through one instance in the other', async () => {
    const instances = await Promise.all(
      [0, 1].map(async () => {
        const events = await PostgresEventStore.open({ connectionString: databaseUrl!, schema });
        await events.listening();
        const runner = new ProjectionRunner(events, new PostgresReadModelStore(events.pool, schema), [counts], logger);
        await runner.start();
        return { events, runner };
      }),
    );
    const [a, b] = instances;
    try {
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => a.events.append(`x${i % 3}`, [event(i)], 'any')));
      const last = Math.max(...results.map((r) => r.position));
      await b.runner.waitFor(last);
      const rows = await b.runner.store.find<{ events: number }>('counts', {});
      assert.equal(rows.reduce((n, r) => n + r.doc.events, 0), 30);
      await a.runner.waitFor(last);
      assert.equal(a.runner.position, b.runner.position);
    } finally {
      for (const i of instances) {
        await i.runner.stop();
      }
      await a.events.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      for (const i of instances) await i.events.close();
    }
  });
});
