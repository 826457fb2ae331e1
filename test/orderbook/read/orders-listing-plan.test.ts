/**
 * GET /api/v1/orders reads a page along an index whatever its filters (issue 29: a page must cost the same
 * whatever the book holds): SQLite's plan for every filter combination, first page and cursor pages alike,
 * sorts nothing (no temporary B-tree), so it stops at its limit instead of sorting every matching order.
 * And an existing database loses the one-column indexes the composite ones replace.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { SqliteReadModelStore } from '../../../src/orderbook/read/models/sqlite.js';
import { whereClause } from '../../../src/orderbook/read/models/sql.js';
import { ordersProjection } from '../../../src/orderbook/read/projections/orders.js';
import { ordersQuery, type OrdersFilter } from '../../../src/orderbook/orderbook.js';

const ADDRESS = '0x' + '11'.repeat(20);

function plan(db: Database.Database, filter: OrdersFilter): string[] {
  const { sql, params } = whereClause(ordersProjection, ordersQuery(filter, 1_800_000_000), () => '?');
  const values = params.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
  return (db.prepare(`EXPLAIN QUERY PLAN SELECT id, doc, position FROM rm_orders${sql}`).all(...values) as { detail: string }[]).map((r) => r.detail);
}

describe('GET /api/v1/orders: the plan of a page', () => {
  it('reads along an index and sorts nothing, for every filter, with and without a cursor', async () => {
    const db = new Database(':memory:');
    await new SqliteReadModelStore(db).prepare(ordersProjection);
    const base = { includeFullyExecuted: false, includeInvalidated: false, includeInsufficientBalance: false, limit: 1000 };
    const filters: Partial<OrdersFilter>[] = [{}, { owner: ADDRESS }, { sellToken: ADDRESS }, { buyToken: ADDRESS }, { owner: ADDRESS, sellToken: ADDRESS }];
    for (const filter of filters) {
      for (const after of [undefined, { createdAt: '2026-11-28T00:00:00.000Z', uid: '0x' + 'ab'.repeat(56) }]) {
        const steps = plan(db, { ...base, ...filter, after });
        assert.ok(!steps.some((s) => /TEMP B-TREE/.test(s)), `${JSON.stringify(filter)} ${after ? 'after a cursor' : 'first page'}: ${steps.join('; ')}`);
        assert.ok(steps.some((s) => /USING INDEX/.test(s)), steps.join('; '));
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
