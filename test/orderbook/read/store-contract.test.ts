import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import type { StoredEvent } from '../../../src/orderbook/store/types.js';
import type { Projection, ReadModelStore, EventSource } from '../../../src/orderbook/read/models/types.js';
import { SqliteReadModelStore } from '../../../src/orderbook/read/models/sqlite.js';
import { PostgresReadModelStore } from '../../../src/orderbook/read/models/postgres.js';
import { MemoryReadModelStore } from '../../../src/orderbook/read/models/memory.js';
import { digestReadModel } from '../../../src/orderbook/read/digest.js';
import { createTestSchema, databaseUrl, type TestSchema } from '../../support/postgres.js';

/** A toy read model: one document per account with its balance; closing an account removes it. */
interface Account {
  owner: string;
  balance: number;
  deposits: number;
}

function accounts(version = 1): Projection<Account> {
  return {
    name: 'accounts',
    version,
    keysOf: (e) => (typeof (e.data as { account?: string }).account === 'string' ? [(e.data as { account: string }).account] : []),
    apply(doc, event) {
      const data = event.data as { owner?: string; amount?: number };
      switch (event.type) {
        case 'Opened':
          return { owner: data.owner!, balance: 0, deposits: 0 };
        case 'Deposited':
          return doc && { ...doc, balance: doc.balance + data.amount!, deposits: doc.deposits + 1 };
        case 'Closed':
          return undefined;
        default:
          return doc;
      }
    },
    columns: {
      owner: { type: 'text', of: (d) => d.owner },
      balance: { type: 'integer', of: (d) => d.balance },
      rich: { type: 'boolean', of: (d) => d.balance >= 100 },
    },
  };
}

function makeEvents(): StoredEvent[] {
  const raw: { type: string; data: object }[] = [];
  for (let i = 0; i < 30; i++) raw.push({ type: 'Opened', data: { account: `acc-${String(i).padStart(2, '0')}`, owner: i % 2 ? 'alice' : 'bob' } });
  for (let i = 0; i < 30; i++) raw.push({ type: 'Deposited', data: { account: `acc-${String(i).padStart(2, '0')}`, amount: i * 10 } });
  raw.push({ type: 'Closed', data: { account: 'acc-03' } });
  raw.push({ type: 'Unrelated', data: {} });
  return raw.map((e, i) => ({
    ...e,
    schemaVersion: 1,
    position: i + 1,
    streamId: 's',
    streamVersion: i + 1,
    recordedAt: '2026-01-01T00:00:00.000Z',
  }));
}

const log = makeEvents();
const source = (batch: number): EventSource => async (after) => log.filter((e) => e.position > after).slice(0, batch);

async function drain(store: ReadModelStore, projection: Projection<Account>, batch: number): Promise<number> {
  let steps = 0;
  for (;;) {
    const r = await store.step([projection], source(batch));
    steps++;
    if (r.events === 0) return steps;
  }
}

function contract(
  name: string,
  available: boolean,
  open: () => Promise<{ store: ReadModelStore; close: () => Promise<void> }>,
) {
  describe(`read model store contract: ${name}`, function () {
    let store: ReadModelStore;
    let close: () => Promise<void>;
    before(function () {
      if (!available) this.skip();
    });
    beforeEach(async () => {
      ({ store, close } = await open());
      await store.prepare(accounts());
    });
    afterEach(() => close());

    it('folds the log into documents, checkpoint at the last event', async () => {
      await drain(store, accounts(), 7);
      assert.equal(await store.checkpoint('accounts'), log.length);
      const acc = await store.get<Account>('accounts', 'acc-05');
      assert.deepEqual(acc?.doc, { owner: 'alice', balance: 50, deposits: 1 });
      assert.equal(acc?.position, 36);
      assert.equal(await store.get('accounts', 'acc-03'), undefined, 'a removed document is gone');
    });

    it('filters, sorts and pages on declared columns', async () => {
      await drain(store, accounts(), 100);
      const rich = await store.find<Account>('accounts', {
        where: [{ column: 'owner', op: '=', value: 'alice' }, { column: 'rich', op: '=', value: true }],
        orderBy: [{ column: 'balance', desc: true }],
        limit: 3,
        offset: 1,
      });
      assert.deepEqual(rich.map((r) => r.doc.balance), [270, 250, 230]);
      await assert.rejects(store.find('accounts', { where: [{ column: 'nope', op: '=', value: 1 }] }));
    });

    it('pages by a keyset cursor: the rows after the last one seen, in orderBy order, ties broken by key', async () => {
      await drain(store, accounts(), 100);
      const orderBy = [{ column: 'owner' }, { column: 'id' }];
      const seen: string[] = [];
      let after: (string | number)[] | undefined;
      for (;;) {
        const page = await store.find<Account>('accounts', { where: [{ column: 'balance', op: '>=', value: 50 }], orderBy, after, limit: 4 });
        seen.push(...page.map((r) => r.key));
        if (page.length < 4) break;
        const last = page[page.length - 1];
        after = [last.doc.owner, last.key];
      }
      const expected = (await store.find<Account>('accounts', { where: [{ column: 'balance', op: '>=', value: 50 }], orderBy })).map((r) => r.key);
      assert.equal(expected.length, 25);
      assert.deepEqual(seen, expected);
      assert.equal(new Set(seen).size, seen.length, 'no row twice');
      const afterAlice = await store.find<Account>('accounts', { orderBy, after: ['alice', 'acc-29'] });
      assert.ok(afterAlice.length > 0 && afterAlice.every((r) => r.doc.owner === 'bob'));
      await assert.rejects(store.find('accounts', { orderBy: [{ column: 'owner', desc: true }], after: ['bob'] }));
    });

    it('gives the same digest whatever the batch size', async () => {
      await drain(store, accounts(), 1);
      const one = await digestReadModel(store, 'accounts');
      await close();
      ({ store, close } = await open());
      await store.prepare(accounts());
      await drain(store, accounts(), 1000);
      const all = await digestReadModel(store, 'accounts');
      assert.deepEqual(one, all);
      assert.equal(all.documents, 29);
      assert.equal(all.position, log.length);
    });

    it('steps several projections in one go, each from its own checkpoint', async () => {
      // `deposits` counts Deposited events per account; it starts later than `accounts`.
      const deposits: Projection<{ n: number }> = {
        name: 'deposits',
        version: 1,
        keysOf: (e) => (e.type === 'Deposited' ? [(e.data as { account: string }).account] : []),
        apply: (doc) => ({ n: (doc?.n ?? 0) + 1 }),
        columns: { n: { type: 'integer', of: (d) => d.n, indexed: false } },
      };
      await drain(store, accounts(), 40);
      await store.prepare(deposits);
      let steps = 0;
      for (;;) {
        const r = await store.step([accounts(), deposits], source(25));
        steps++;
        assert.ok(r.checkpoints.accounts >= r.checkpoints.deposits);
        if (r.events === 0) {
          assert.deepEqual(r.checkpoints, { accounts: log.length, deposits: log.length });
          break;
        }
      }
      assert.equal(steps, 4, 'three steps of up to 25 events from position 0, then an empty one');
      assert.equal(await store.checkpoint('deposits'), log.length);
      const counted = await store.find<{ n: number }>('deposits', {});
      assert.equal(counted.length, 30);
      assert.ok(counted.every((r) => r.doc.n === 1));
      // accounts was not applied twice while deposits caught up.
      assert.deepEqual((await store.get<Account>('accounts', 'acc-05'))?.doc, { owner: 'alice', balance: 50, deposits: 1 });
    });

    it('folds two projections with the same keysOf and apply, each with its own columns, also when one lags', async () => {
      const base = accounts();
      const twin: Projection<Account> = { ...base, name: 'accounts_twin', columns: { deposits: { type: 'integer', of: (d) => d.deposits } } };
      await store.prepare(base);
      await drain(store, base, 20); // the twin starts behind
      await store.prepare(twin);
      for (;;) if ((await store.step([base, twin], source(10))).events === 0) break;
      const [a, b] = [await digestReadModel(store, 'accounts'), await digestReadModel(store, 'accounts_twin')];
      assert.equal(a.sha256, b.sha256, 'the same documents');
      assert.equal(b.documents, 29);
      const deposited = await store.find<Account>('accounts_twin', { where: [{ column: 'deposits', op: '=', value: 1 }] });
      assert.equal(deposited.length, 29);
      await assert.rejects(store.find('accounts_twin', { where: [{ column: 'owner', op: '=', value: 'bob' }] }), 'its own columns only');
    });

    it('rebuilds from position 0 when the projection version changes', async () => {
      await drain(store, accounts(), 100);
      await store.prepare(accounts(2));
      assert.equal(await store.checkpoint('accounts'), 0);
      assert.equal((await store.find('accounts', {})).length, 0);
      await drain(store, accounts(2), 100);
      assert.equal((await store.find('accounts', {})).length, 29);
    });
  });
}

contract('sqlite', true, async () => {
  const db = new Database(':memory:');
  return { store: new SqliteReadModelStore(db), close: async () => void db.close() };
});

contract('memory', true, async () => ({ store: new MemoryReadModelStore(), close: async () => undefined }));

contract('postgres', Boolean(databaseUrl), async () => {
  const schema = await createTestSchema('rm');
  return { store: new PostgresReadModelStore(schema.pool, schema.schema), close: () => schema.drop() };
});

describe('read model stores: postgres beside sqlite', function () {
  let schema: TestSchema;
  before(async function () {
    if (!databaseUrl) this.skip();
    schema = await createTestSchema('rm');
  });
  after(() => schema?.drop());

  it('gives the digest SQLite gives for the same log', async () => {
    const db = new Database(':memory:');
    const lite = new SqliteReadModelStore(db);
    await lite.prepare(accounts());
    await drain(lite, accounts(), 10);
    const sqliteDigest = (await digestReadModel(lite, 'accounts')).sha256;
    db.close();

    const store = new PostgresReadModelStore(schema.pool, schema.schema);
    await store.prepare(accounts());
    await drain(store, accounts(), 10);
    assert.equal((await digestReadModel(store, 'accounts')).sha256, sqliteDigest);
  });

  it('applies each event once when several instances step at the same time', async () => {
    const other = await createTestSchema('rm');
    try {
      const stores = [0, 1, 2].map(() => new PostgresReadModelStore(other.pool, other.schema));
      for (const s of stores) await s.prepare(accounts());
      // Three "instances" race batch by batch; the row lock on the checkpoint serialises them.
      await Promise.all(stores.map((s) => drain(s, accounts(), 3)));
      const docs = await stores[0].find<Account>('accounts', {});
      const deposits = docs.reduce((n, r) => n + r.doc.deposits, 0);
      assert.equal(deposits, 29, 'every deposit applied exactly once (acc-03 closed)');
      assert.equal(await stores[1].checkpoint('accounts'), log.length);
    } finally {
      await other.drop();
    }
  });
});
