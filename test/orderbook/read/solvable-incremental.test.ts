/**
 * The solvable orders answer is kept up to date change by change (src/orderbook/read/solvable-view.ts): after
 * any sequence of creations (also older than orders already open), trades, cancellations, changes of the
 * owners' spendable amounts and time passing orders' validTo, the answer a view built step by step gives is
 * the one a fresh view builds from scratch and the one written here from the read model rows, plain and
 * gzipped (Node's zlib), and its auction form is the answer's orders made auction orders. Its ETag is the
 * fresh view's and changes exactly when the answer's bytes do.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { SqliteEventStore } from '../../../src/orderbook/store/sqlite.js';
import { MemoryReadModelStore } from '../../../src/orderbook/read/models/memory.js';
import { ProjectionRunner } from '../../../src/orderbook/read/runner.js';
import { SolvableOrders, type SolvableAnswer } from '../../../src/orderbook/read/solvable-view.js';
import { projections } from '../../../src/orderbook/read/projections/index.js';
import { solvableByEvents, stateOf, type OrderDoc } from '../../../src/orderbook/read/projections/orders.js';
import { orderStreamId } from '../../../src/orderbook/write/events.js';
import { presentOrder } from '../../../src/orderbook/api/present-order.js';
import { allocateFunding } from '../../../src/orderbook/domain/funding.js';
import { auctionOrder } from '../../../src/orderbook/api/encoding/auction-order.js';
import { solvableEncoding } from '../../../src/orderbook/api/encoding/solvable.js';
import type { SpendableBalances } from '../../../src/orderbook/chain/port.js';
import type { NewEvent } from '../../../src/orderbook/store/types.js';
import type { Order } from '../../../src/generated/orderbook/order.js';
import { logger } from '../../../src/shared/logger.js';
import { orderEvents } from '../../support/synthetic-log.js';

const SETTLEMENT = '0x9008d19f58aabd9ed0d60971565aa8510560ab41';
const OWNERS = ['0x' + '11'.repeat(20), '0x' + '22'.repeat(20), '0x' + '33'.repeat(20)];
const TOKENS = ['0x' + 'a1'.repeat(20), '0x' + 'b2'.repeat(20)];
const START = 1_800_000_000;
const E15 = 10n ** 15n;

/**
 * Spendable amounts set by the test: the port the view reads funding from, whose chain implementation the
 * onchain suites exercise against anvil.
 */
class SetAmounts implements SpendableBalances {
  version = 0;
  tracked: string[] = [];
  private readonly amounts = new Map<string, bigint>();

  get(owner: string, token: string): bigint | undefined {
    return this.amounts.get(`${owner}:${token}`);
  }
  atHead(): bigint | undefined {
    return undefined;
  }
  fetch(): Promise<bigint> {
    return Promise.reject(new Error('not read here'));
  }
  track(pairs: Iterable<readonly [string, string]>): void {
    this.tracked = [...pairs].map(([owner, token]) => `${owner}:${token}`).sort();
  }
  onChange(): () => void {
    return () => undefined;
  }
  set(owner: string, token: string, amount: bigint | undefined): void {
    if (amount === undefined) this.amounts.delete(`${owner}:${token}`);
    else this.amounts.set(`${owner}:${token}`, amount);
    this.version++;
  }
}

type Step =
  | { kind: 'create'; owner: number; token: number; sell: number; partial: boolean; buy: boolean; lifetime: number; age: number; during: boolean }
  | { kind: 'trade'; pick: number; part: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'amount'; owner: number; token: number; amount: number | null }
  | { kind: 'time'; seconds: number }
  | { kind: 'check' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      owner: fc.nat(OWNERS.length - 1),
      token: fc.nat(TOKENS.length - 1),
      sell: fc.integer({ min: 1, max: 5 }),
      partial: fc.boolean(),
      buy: fc.boolean(),
      lifetime: fc.constantFrom(0, 3, 20, 10_000),
      // Most orders are the newest; some carry an older creation date and go between the open ones.
      age: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 100 }) }),
      // Appended while an answer is being built (which yields between batches here).
      during: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('trade' as const), pick: fc.nat(), part: fc.constantFrom(1, 2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('amount' as const),
      owner: fc.nat(OWNERS.length - 1),
      token: fc.nat(TOKENS.length - 1),
      amount: fc.option(fc.integer({ min: 0, max: 12 }), { freq: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('time' as const), seconds: fc.constantFrom(1, 4, 30) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'check' as const }) },
);

const plain = (answer: SolvableAnswer) => Buffer.concat(answer.body.buffers);

describe('solvable orders view, kept up to date change by change', () => {
  it('answers what a fresh build answers, plain and gzip, with an ETag that changes exactly when the answer does', async function () {
    this.timeout(240_000);
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), fc.integer({ min: 2, max: 6 }), async (steps, segmentSize) => {
        const events = new SqliteEventStore(':memory:');
        const store = new MemoryReadModelStore();
        const runner = new ProjectionRunner(events, store, projections, logger);
        await runner.start();
        const amounts = new SetAmounts();
        const view = new SolvableOrders(store, runner, amounts, solvableEncoding(SETTLEMENT), { segmentSize, rowsPerTurn: 3, ordersPerTurn: 2, bytesPerTurn: 2000 });
        await view.start();
        try {
          let now = START;
          let n = 0;
          const created: { uid: string; owner: string; sellToken: string; buyToken: string; sell: bigint; buy: bigint; trades: number }[] = [];
          const etagOf = new Map<string, string>();
          const answerOf = new Map<string, string>();
          const append = async (uid: string, event: NewEvent) => {
            const { position } = await events.append(orderStreamId(uid), [event], 'any');
            await runner.waitFor(position);
          };

          const check = async () => {
            const answer = await view.answer(now);
            const written = await expected(store, amounts, now);
            assert.equal(plain(answer).toString(), written.text, 'the answer built change by change is the one written from the rows');
            await verify(answer);
            // Another instance that sees the same rows builds the same bytes and ETag from scratch.
            const fresh = new SolvableOrders(store, runner, amounts, solvableEncoding(SETTLEMENT));
            await fresh.start();
            const scratch = await fresh.answer(now);
            assert.equal(plain(scratch).toString(), written.text);
            assert.equal(scratch.etag, answer.etag);
            // The balances read at every block are those of the open orders' owners and tokens.
            assert.deepEqual(amounts.tracked, written.pairs);
          };

          /** The answer's forms agree with its plain text, and its ETag with every answer seen so far. */
          const verify = async (answer: SolvableAnswer) => {
            const text = plain(answer).toString();
            assert.equal(answer.body.length, Buffer.byteLength(text));
            const gzipped = await answer.compressed();
            const zipped = Buffer.concat(gzipped.buffers);
            assert.equal(gzipped.length, zipped.length);
            assert.equal(gunzipSync(zipped).toString(), text);
            // The auction's orders: the answer's, in their auction form, and their tokens as they first appear.
            const orders = JSON.parse(text) as Order[];
            const auction = answer.auctionOrders();
            assert.deepEqual(JSON.parse(Buffer.concat(auction.orders.buffers).toString()), orders.map(auctionOrder));
            assert.equal(auction.orders.length, Buffer.concat(auction.orders.buffers).length);
            assert.deepEqual(auction.tokens, [...new Set(orders.flatMap((o) => [o.sellToken, o.buyToken]))]);
            // The ETag changes exactly when the answer does.
            assert.equal(etagOf.get(text) ?? answer.etag, answer.etag, 'the same answer has the same ETag');
            assert.equal(answerOf.get(answer.etag) ?? text, text, 'another answer has another ETag');
            etagOf.set(text, answer.etag);
            answerOf.set(answer.etag, text);
          };

          for (const s of steps) {
            if (s.kind === 'create') {
              const [template] = orderEvents(n);
              const uid = '0x' + createHash('sha256').update(`order ${n}`).digest('hex') + OWNERS[s.owner].slice(2) + 'ffffffff';
              const sell = BigInt(s.sell) * E15;
              const buy = BigInt(s.sell) * E15;
              const buyToken = '0x' + 'c3'.repeat(20);
              created.push({ uid, owner: OWNERS[s.owner], sellToken: TOKENS[s.token], buyToken, sell, buy, trades: 0 });
              const before = s.during ? (await expected(store, amounts, now)).text : undefined;
              const pending = s.during ? view.answer(now) : undefined;
              await append(uid, {
                ...template,
                data: {
                  ...(template.data as object),
                  uid,
                  owner: OWNERS[s.owner],
                  sellToken: TOKENS[s.token],
                  buyToken,
                  creationDate: new Date((now - s.age) * 1000).toISOString(),
                  sellAmount: sell.toString(),
                  buyAmount: buy.toString(),
                  feeAmount: '0',
                  validTo: now + s.lifetime,
                  kind: s.buy ? 'buy' : 'sell',
                  partiallyFillable: s.partial,
                },
              });
              n++;
              if (pending) {
                // The answer asked for before the append is the book before it or after it, whole.
                const answer = await pending;
                assert.ok([before, (await expected(store, amounts, now)).text].includes(plain(answer).toString()), 'the book before or after the change');
                await verify(answer);
              }
            } else if (s.kind === 'trade' && created.length > 0) {
              const order = created[s.pick % created.length];
              // Half of the order, or all of it.
              const sold = (order.sell * BigInt(s.part)) / 2n;
              const bought = (order.buy * BigInt(s.part)) / 2n;
              order.trades++;
              await append(order.uid, {
                type: 'TradeRecorded',
                schemaVersion: 1,
                data: {
                  uid: order.uid,
                  chain: { blockNumber: 1000 + n++, blockHash: '0x' + 'ee'.repeat(32), logIndex: 0, transactionHash: '0x' + 'dd'.repeat(32) },
                  owner: order.owner,
                  sellToken: order.sellToken,
                  buyToken: order.buyToken,
                  sellAmount: sold.toString(),
                  buyAmount: bought.toString(),
                  feeAmount: '0',
                  sellAmountBeforeFees: sold.toString(),
                },
              });
            } else if (s.kind === 'cancel' && created.length > 0) {
              const order = created[s.pick % created.length];
              const at = new Date(now * 1000).toISOString();
              await append(order.uid, { type: 'OrderCancelled', schemaVersion: 1, data: { uid: order.uid, cancelledAt: at, signingScheme: 'eip712', signature: '0x' + 'ab'.repeat(64) + '1b' } });
            } else if (s.kind === 'amount') {
              amounts.set(OWNERS[s.owner], TOKENS[s.token], s.amount === null ? undefined : BigInt(s.amount) * E15);
            } else if (s.kind === 'time') {
              now += s.seconds;
            } else if (s.kind === 'check') {
              await check();
            }
          }
          await check();
        } finally {
          await runner.stop();
          await events.close();
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 400) },
    );
  });
});

/** The answer written from the read model's rows: the open, valid orders oldest first, funded ones only. */
async function expected(store: MemoryReadModelStore, amounts: SetAmounts, now: number): Promise<{ text: string; pairs: string[] }> {
  const rows = await store.find<OrderDoc>('orders', {});
  const states = rows
    .map((row) => stateOf(row.doc))
    .filter((state) => solvableByEvents(state) && state.order!.validTo >= now)
    .sort((a, b) => {
      const x = a.order!;
      const y = b.order!;
      return x.creationDate < y.creationDate ? -1 : x.creationDate > y.creationDate ? 1 : x.uid < y.uid ? -1 : 1;
    });
  const funding = allocateFunding(
    states.map((state) => ({
      uid: state.order!.uid,
      owner: state.order!.owner,
      sellToken: state.order!.sellToken,
      kind: state.order!.kind,
      partiallyFillable: state.order!.partiallyFillable,
      sellAmount: BigInt(state.order!.sellAmount),
      buyAmount: BigInt(state.order!.buyAmount),
      feeAmount: BigInt(state.order!.feeAmount),
      executedSellAmount: state.executed.sellAmount,
      executedBuyAmount: state.executed.buyAmount,
    })),
    (owner, token) => amounts.get(owner, token),
  );
  const shown = states.filter((state) => funding.get(state.order!.uid)!.funded);
  const pairs = [...new Set(states.map((state) => `${state.order!.owner}:${state.order!.sellToken}`))].sort();
  const text = `[${shown.map((state) => JSON.stringify(presentOrder(state, now, SETTLEMENT, funding.get(state.order!.uid)!.availableBalance))).join(',')}]`;
  return { text, pairs };
}
