/**
 * The listings read a page along an index whatever their filters (issue 29: a page must cost the same
 * whatever the book holds): SQLite's plan for GET /api/v1/orders (every filter combination, first page and
 * cursor pages) and for the trades listings (v1 oldest first, v2 and total_surplus newest first) sorts
 * nothing (no temporary B-tree), so it stops at its limit instead of sorting every match. And an existing
 * database loses the one-column indexes the composite ones replace.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { SqliteReadModelStore } from '../../../src/orderbook/read/models/sqlite.js';
import { whereClause } from '../../../src/orderbook/read/models/sql.js';
import { ordersProjection } from '../../../src/orderbook/read/projections/orders.js';
import { tradesProjection } from '../../../src/orderbook/read/projections/trades.js';
import { ordersQuery, type OrdersFilter } from '../../../src/orderbook/usecases/queries/orders.js';
import { tradesQuery } from '../../../src/orderbook/usecases/queries/trades.js';
import type { Projection, Query } from '../../../src/orderbook/read/models/types.js';

const ADDRESS = '0x' + '11'.repeat(20);

function plan(db: Database.Database, projection: Projection<any>, query: Query): string[] {
  const { sql, params } = whereClause(projection, query, () => '?');
  const values = params.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
  return (db.prepare(`EXPLAIN QUERY PLAN SELECT id, doc, position FROM rm_${projection.name}${sql}`).all(...values) as { detail: string }[]).map((r) => r.detail);
}

function assertIndexOrdered(steps: string[], what: string): void {
  assert.ok(!steps.some((s) => /TEMP B-TREE/.test(s)), `${what}: ${steps.join('; ')}`);
  assert.ok(steps.some((s) => /USING INDEX/.test(s)), `${what}: ${steps.join('; ')}`);
}

describe('listings: the plan of a page', () => {
  it('reads along an index and sorts nothing, for every filter, with and without a cursor', async () => {
    const db = new Database(':memory:');
    await new SqliteReadModelStore(db).prepare(ordersProjection);
    const base = { includeFullyExecuted: false, includeInvalidated: false, includeInsufficientBalance: false, limit: 1000 };
    const filters: Partial<OrdersFilter>[] = [{}, { owner: ADDRESS }, { sellToken: ADDRESS }, { buyToken: ADDRESS }, { owner: ADDRESS, sellToken: ADDRESS }];
    for (const filter of filters) {
      for (const after of [undefined, { createdAt: '2026-11-28T00:00:00.000Z', uid: '0x' + 'ab'.repeat(56) }]) {
        const steps = plan(db, ordersProjection, ordersQuery({ ...base, ...filter, after }, 1_800_000_000));
        assertIndexOrdered(steps, `orders ${JSON.stringify(filter)} ${after ? 'after a cursor' : 'first page'}`);
      }
    }
  });

  it('reads the trades along an index, oldest or newest first, by owner, by order or all', async () => {
    const db = new Database(':memory:');
    await new SqliteReadModelStore(db).prepare(tradesProjection);
    for (const filter of [{}, { owner: ADDRESS }, { orderUid: '0x' + 'ab'.repeat(56) }]) {
      for (const first of ['oldest', 'newest'] as const) {
        assertIndexOrdered(plan(db, tradesProjection, tradesQuery({ ...filter, offset: 10, limit: 1000 }, first)), `trades ${JSON.stringify(filter)} ${first} first`);
      }
    }
  });

  it('drops the one-column indexes an older definition made', async () => {
    const db = new Database(':memory:');
    const store = new SqliteReadModelStore(db);
    // The table as the previous definition left it, same version: one-column indexes on owner and created_at.
    db.exec(`INSERT INTO rm_checkpoints (name, version, position) VALUES ('orders', ${ordersProjection.version}, 0)`);
    db.exec('CREATE TABLE rm_orders (id TEXT PRIMARY KEY, doc TEXT NOT NULL, position INTEGER NOT NULL, known INTEGER, owner TEXT, sell_token TEXT, buy_token TEXT, valid_to INTEGER, created_at TEXT, fully_executed INTEGER, invalidated INTEGER, solvable INTEGER)');
    db.exec('CREATE INDEX rm_orders_owner ON rm_orders (owner)');
    db.exec('CREATE INDEX rm_orders_created_at ON rm_orders (created_at)');
    await store.prepare(ordersProjection);
    const indexes = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rm_orders'").all() as { name: string }[]).map((r) => r.name);
    assert.ok(!indexes.includes('rm_orders_owner') && !indexes.includes('rm_orders_created_at'), indexes.join(', '));
    assert.ok(indexes.includes('rm_orders_owner_created_at_id') && indexes.includes('rm_orders_created_at_id'), indexes.join(', '));
  });
});
