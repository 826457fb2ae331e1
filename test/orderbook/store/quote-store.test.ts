/**
 * The quote store contract (store/quote-store.ts), run against every implementation: SQLite always,
 * PostgreSQL when DATABASE_URL is set, each on the event store it goes with (quoteStoreFor). A quote is
 * found by id until it expires, expired quotes are deleted by the next save, ids are never reused, and at
 * most maxLive quotes are kept; with PostgreSQL another instance (another pool) finds them too.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresEventStore, SqliteEventStore, quoteStoreFor, type OpenedEventStore, type QuoteData, type QuoteStore } from '../../../src/orderbook/store/index.js';
import { databaseUrl, dropSchema } from '../../support/postgres.js';
import { syntheticQuote } from '../../support/synthetic-log.js';

interface Location {
  open(): Promise<OpenedEventStore>;
  drop(): Promise<void>;
}

const implementations: { name: string; unavailable?: string; shared: boolean; create(): Location }[] = [
  {
    name: 'SQLite',
    shared: false,
    create() {
      const dir = mkdtempSync(join(tmpdir(), 'ethgate-quotes-'));
      return { open: async () => new SqliteEventStore(join(dir, 'events.sqlite')), drop: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'PostgreSQL',
    unavailable: databaseUrl ? undefined : 'DATABASE_URL is not set',
    shared: true,
    create() {
      const schema = `qs_test_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
      return { open: () => PostgresEventStore.open({ connectionString: databaseUrl!, schema }), drop: () => dropSchema(schema) };
    },
  },
];

const T0 = Date.parse('2026-11-28T00:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);

/** A quote given at `seconds` after T0, valid for `ttl` seconds. */
function quote(seconds: number, ttl = 600, from = '0x' + '42'.repeat(20)): QuoteData {
  return { ...syntheticQuote(at(seconds).toISOString()), from, quotedAt: at(seconds).toISOString(), expiration: at(seconds + ttl).toISOString() };
}

for (const impl of implementations) {
  describe(`quote store contract: ${impl.name}`, function () {
    let location: Location;
    let opened: OpenedEventStore[];

    async function storeOn(maxLive = 1000): Promise<QuoteStore> {
      const events = await location.open();
      opened.push(events);
      return quoteStoreFor(events, { maxLive });
    }

    before(function () {
      if (impl.unavailable) this.skip();
    });

    beforeEach(() => {
      location = impl.create();
      opened = [];
    });

    afterEach(async () => {
      await Promise.all(opened.map((s) => s.close()));
      await location.drop();
    });

    it('finds a quote by its integer id until it expires, and nothing by an id it never gave', async () => {
      const store = await storeOn();
      const given = quote(0);
      const id = await store.save(given, at(0));
      assert.ok(Number.isSafeInteger(id) && id >= 1, `id ${id}`);
      assert.deepEqual(await store.find(id, at(1)), { ...given, id });
      assert.deepEqual(await store.find(id, at(599.999)), { ...given, id });
      assert.equal(await store.find(id, at(600)), null, 'expired at its expiration');
      for (const other of [id + 1, 0, -1, 1.5, Number.MAX_SAFE_INTEGER + 2]) assert.equal(await store.find(other, at(1)), null, String(other));
    });

    it('deletes expired quotes at the next save, and never gives an id twice', async () => {
      const store = await storeOn();
      const first = await store.save(quote(0, 10), at(0));
      const second = await store.save(quote(5, 10), at(5));
      assert.equal(await store.count(), 2);
      const third = await store.save(quote(12, 10), at(12));
      assert.equal(await store.count(), 2, 'the first, expired at 10, is deleted by the save at 12');
      assert.equal(await store.find(first, at(0)), null, 'gone, even asked as of a time it was valid');
      assert.ok(first < second && second < third);
      await store.save(quote(30, 10), at(30));
      const fourth = await store.save(quote(31, 10), at(31));
      assert.equal(await store.count(), 2);
      assert.ok(fourth > third, 'ids keep rising after deletes');
    });

    it('keeps at most maxLive quotes: a save beyond deletes the oldest', async () => {
      const store = await storeOn(3);
      const ids: number[] = [];
      for (let i = 0; i < 7; i++) ids.push(await store.save(quote(i), at(i)));
      assert.equal(await store.count(), 3);
      for (const id of ids.slice(0, 4)) assert.equal(await store.find(id, at(10)), null);
      for (const id of ids.slice(4)) assert.equal((await store.find(id, at(10)))?.id, id);
    });

    it('holds amounts of any size and the app data document as given', async () => {
      const store = await storeOn();
      const given = { ...quote(0), sellAmount: (2n ** 256n - 1n).toString(), fullAppData: '{"appCode":"ünïcödé ✓","metadata":{}}' };
      const id = await store.save(given, at(0));
      assert.deepEqual(await store.find(id, at(1)), { ...given, id });
    });

    if (impl.shared) it('is shared by the instances on one database', async function () {
      const one = await storeOn();
      const other = await storeOn();
      const [a, b] = await Promise.all([one.save(quote(0), at(0)), other.save(quote(0), at(0))]);
      assert.notEqual(a, b);
      assert.equal((await other.find(a, at(1)))?.id, a);
      assert.equal((await one.find(b, at(1)))?.id, b);
    });
  });
}
