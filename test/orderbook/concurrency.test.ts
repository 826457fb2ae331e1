/**
 * Concurrent commands on one order, on SQLite and on PostgreSQL: 50 concurrent POSTs of the same order give
 * one 201 and DuplicatedOrder for the rest; 50 concurrent cancellations append one OrderCancelled (one 200,
 * AlreadyCancelled for the others). Optimistic concurrency on the order's stream decides who wins.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { signCancellation, signOrder } from '../support/orders.js';
import { deleteOrder, get, postOrder, startOrderbookService, TOKENS, type OrderbookHarness } from '../support/orderbook.js';
import { databaseUrl, dropSchema } from '../support/postgres.js';
import { e18 } from '../support/onchain.js';

const { TKA, TKB } = TOKENS;
const CONCURRENT = 50;

function tally(statuses: { status: number; json: { errorType?: string } | undefined }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status, json } of statuses) {
    const key = status === 201 || status === 200 ? String(status) : `${status} ${json?.errorType}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`order book concurrency (${engine})`, function () {
    this.timeout(120_000);
    let h: OrderbookHarness;
    let schema: string | undefined;

    before(async function () {
      if (engine === 'postgres') {
        if (!databaseUrl) return this.skip();
        schema = `ob_conc_${randomBytes(5).toString('hex')}`;
        h = await startOrderbookService({ DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema });
      } else {
        h = await startOrderbookService();
      }
    });
    after(async () => {
      await h?.stop();
      await dropSchema(schema);
    });

    it(`${CONCURRENT} concurrent POSTs of one order: one 201, DuplicatedOrder for the others, one OrderCreated`, async () => {
      const alice = await h.trader({ [TKA]: e18(100) });
      const signed = await signOrder(alice, h.domain, { sellToken: TKA, buyToken: TKB, sellAmount: e18(1), buyAmount: e18(1) });
      const head = await h.book.events.head();
      const answers = await Promise.all(Array.from({ length: CONCURRENT }, () => postOrder(h.api, signed.body)));
      assert.deepEqual(tally(answers), { '201': 1, '400 DuplicatedOrder': CONCURRENT - 1 });
      assert.equal(answers.find((a) => a.status === 201)!.json, signed.uid);
      const events = (await get(h.api, `/orders/${signed.uid}/events`)).json;
      assert.deepEqual(events.map((e: { type: string }) => e.type), ['OrderCreated']);
      assert.equal(await h.book.events.head(), head + 1);
      assert.equal((await get(h.api, `/orders?owner=${alice.address}`)).json.length, 1);
    });

    it(`${CONCURRENT} concurrent cancellations: one 200, AlreadyCancelled for the others, one OrderCancelled`, async () => {
      const bob = await h.trader({ [TKA]: e18(100) });
      const signed = await signOrder(bob, h.domain, { sellToken: TKA, buyToken: TKB, sellAmount: e18(1), buyAmount: e18(1) });
      assert.equal((await postOrder(h.api, signed.body)).status, 201);
      // Distinct signatures (eip712 and ethsign) of the same cancellation, sent all at once.
      const bodies = [await signCancellation(bob, h.domain, signed.uid, 'eip712'), await signCancellation(bob, h.domain, signed.uid, 'ethsign')];
      const answers = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => deleteOrder(h.api, signed.uid, bodies[i % 2])));
      assert.deepEqual(tally(answers), { '200': 1, '400 AlreadyCancelled': CONCURRENT - 1 });
      const events = (await get(h.api, `/orders/${signed.uid}/events`)).json;
      assert.deepEqual(events.map((e: { type: string }) => e.type), ['OrderCreated', 'OrderCancelled']);
      assert.equal((await get(h.api, `/orders/${signed.uid}`)).json.status, 'cancelled');
    });

    it('many distinct orders at once are all accepted, each once', async () => {
      const carol = await h.trader({ [TKA]: e18(1000) });
      const orders = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          signOrder(carol, h.domain, { sellToken: TKA, buyToken: TKB, sellAmount: e18(1), buyAmount: BigInt(i + 1) }),
        ),
      );
      const answers = await Promise.all(orders.flatMap((o) => [postOrder(h.api, o.body), postOrder(h.api, o.body)]));
      assert.deepEqual(tally(answers), { '201': 100, '400 DuplicatedOrder': 100 });
      const listed = (await get(h.api, `/orders?owner=${carol.address}&includeInsufficientBalance=true`)).json;
      assert.deepEqual(listed.map((o: { uid: string }) => o.uid).sort(), orders.map((o) => o.uid).sort());
    });
  });
}
