/**
 * When the read models cannot catch up within READ_MODELS_WAIT_MS, a POST or DELETE still answers success
 * (its event is appended and acknowledged), and the order shows once they catch up: nothing acknowledged is
 * lost. The read models are held back for real: another PostgreSQL session locks the `orders` read model's
 * table against writes, as a long migration or a stuck transaction would.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { signCancellation, signOrder } from '../support/orders.js';
import { deleteOrder, get, postOrder, startOrderbookService, TOKENS, type OrderbookHarness } from '../support/orderbook.js';
import { databaseUrl, dropSchema } from '../support/postgres.js';
import { e18 } from '../support/onchain.js';
import { until } from '../support/wait.js';

const { TKA, TKB } = TOKENS;

describe('order book: read models behind (PostgreSQL)', function () {
  this.timeout(120_000);
  let h: OrderbookHarness;
  let schema: string | undefined;
  let blocker: pg.Client | undefined;

  before(async function () {
    if (!databaseUrl) return this.skip();
    schema = `ob_behind_${randomBytes(5).toString('hex')}`;
    h = await startOrderbookService({ DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, READ_MODELS_WAIT_MS: '300' });
  });
  after(async () => {
    await blocker?.end();
    await h?.stop();
    await dropSchema(schema);
  });

  /** Holds writes to the orders read model until `release` is called. */
  async function holdReadModels(): Promise<{ release(): Promise<void> }> {
    blocker = new pg.Client({ connectionString: databaseUrl });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query(`LOCK TABLE "${schema}".rm_orders IN EXCLUSIVE MODE`);
    const client = blocker;
    return {
      async release() {
        await client.query('COMMIT');
        await client.end();
        blocker = undefined;
      },
    };
  }

  it('answers 201 and 200 once the events are stored, and shows them when the read models catch up', async () => {
    const alice = await h.trader({ [TKA]: e18(10) });
    const signed = await signOrder(alice, h.domain, { sellToken: TKA, buyToken: TKB, sellAmount: e18(1), buyAmount: e18(1) });
    const held = await holdReadModels();
    try {
      const created = await postOrder(h.api, signed.body);
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json, signed.uid);
      const cancelled = await deleteOrder(h.api, signed.uid, await signCancellation(alice, h.domain, signed.uid, 'eip712'));
      assert.equal(cancelled.status, 200, cancelled.text);
      // Stored, not yet shown: the events are in the log, the read model has not reached them.
      const events = (await get(h.api, `/orders/${signed.uid}/events`)).json as { type: string }[];
      assert.deepEqual(events.map((e) => e.type), ['OrderCreated', 'OrderCancelled']);
      assert.equal((await get(h.api, `/orders/${signed.uid}`)).status, 404);
    } finally {
      await held.release();
    }
    await until(async () => (await get(h.api, `/orders/${signed.uid}`)).json?.status === 'cancelled', 'the read models to catch up');
    // The same order again is a duplicate: it was kept.
    const again = await postOrder(h.api, signed.body);
    assert.equal(again.status, 400);
    assert.equal(again.json.errorType, 'DuplicatedOrder');
  });
});
