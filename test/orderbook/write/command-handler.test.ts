/**
 * The generic command handler on a real event store (SQLite): several decisions on several streams are
 * appended all or nothing, and a concurrent append to any of their streams between the decision and the
 * append makes them all be decided again (bulk cancellation: a trade that fulfils one of the orders turns
 * the whole request into its refusal, with nothing appended; an event that changes no decision lets all
 * through in one append).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { SqliteEventStore } from '../../../src/orderbook/store/sqlite.js';
import type { EventStore, StoredEvent } from '../../../src/orderbook/store/types.js';
import { decision, handle, handleAll } from '../../../src/orderbook/write/command-handler.js';
import { orderDecider, type OrderCommand } from '../../../src/orderbook/write/decider.js';
import { orderStreamId } from '../../../src/orderbook/write/events.js';
import { domainSeparator, gpv2Domain } from '../../../src/orderbook/domain/eip712.js';
import { verifyCancellations } from '../../../src/orderbook/domain/cancellation.js';
import { OrderbookError } from '../../../src/orderbook/domain/errors.js';
import { validateOrderCreation, type ValidatedOrder } from '../../../src/orderbook/domain/order.js';
import { signOrder } from '../../support/orders.js';
import { signCancellations } from '../../support/cow-sdk.js';
import { DEV_KEYS } from '../../support/vectors.js';

const DOMAIN = gpv2Domain(1, '0x9008D19f58AAbD9eD0D60971565AA8510560ab41');
const SEPARATOR = domainSeparator(DOMAIN);
const NOW = Math.floor(Date.now() / 1000);
const alice = new Wallet(DEV_KEYS[1]);
const RULES = { maxMarketSeconds: 3 * 3600, maxLimitSeconds: 365 * 86400, feeRatioBps: 0 };

describe('command handler: decisions on several streams', () => {
  let dir: string;
  let store: SqliteEventStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ethgate-handler-'));
    store = new SqliteEventStore(join(dir, 'events.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function placed(n: number, partiallyFillable = false): Promise<ValidatedOrder> {
    const { body } = await signOrder(alice, DOMAIN, {
      sellToken: '0x' + 'a1'.repeat(20),
      buyToken: '0x' + 'b2'.repeat(20),
      sellAmount: 1000n + BigInt(n),
      buyAmount: 500n,
      validTo: NOW + 3600,
      partiallyFillable,
    });
    const order = validateOrderCreation(body, { domainSeparator: SEPARATOR, now: NOW, minValidToSeconds: 0 });
    const command: OrderCommand = {
      type: 'CreateOrder',
      data: { order, creationDate: new Date().toISOString(), now: NOW, rules: RULES, fullAppData: null, facts: { spendable: 10n ** 18n } },
    };
    await handle(store, orderDecider, orderStreamId(order.uid), command, { fresh: true });
    return order;
  }

  async function bulkCancel(on: EventStore, orders: ValidatedOrder[]) {
    const uids = orders.map((o) => o.uid);
    const { cancellation } = verifyCancellations(
      { orderUids: uids, signature: await signCancellations(alice, DOMAIN, uids), signingScheme: 'eip712' },
      SEPARATOR,
    );
    const cancelledAt = new Date().toISOString();
    return handleAll(
      on,
      uids.map((uid) => decision(orderDecider, orderStreamId(uid), { type: 'CancelOrder', data: { uid, cancellation, cancelledAt, bulk: true } })),
    );
  }

  /** The store, with `race` run once right after the first read of `streamId`: another writer's append. */
  function racing(streamId: string, race: () => Promise<unknown>): EventStore & { reads: number } {
    let raced = false;
    const wrapper = Object.create(store) as EventStore & { reads: number };
    wrapper.reads = 0;
    wrapper.aggregateStream = async <S>(id: string, evolve: (state: S, event: StoredEvent) => S, initial: S) => {
      const folded = await store.aggregateStream(id, evolve, initial);
      wrapper.reads++;
      if (id === streamId && !raced) {
        raced = true;
        await race();
      }
      return folded;
    };
    return wrapper;
  }

  const trade = (order: ValidatedOrder, block: number, sellAmount: bigint): OrderCommand => ({
    type: 'RecordTrade',
    data: {
      uid: order.uid,
      chain: { blockNumber: block, blockHash: '0x' + block.toString(16).padStart(64, '0'), logIndex: 0, transactionHash: '0x' + 'ee'.repeat(32) },
      owner: order.owner,
      sellToken: order.sellToken,
      buyToken: order.buyToken,
      sellAmount,
      buyAmount: 500n,
      feeAmount: 0n,
    },
  });

  it('appends every cancellation in one append, in the order given', async () => {
    const orders = [await placed(1), await placed(2), await placed(3)];
    const head = await store.head();
    const { position } = await bulkCancel(store, orders);
    assert.equal(position, head + 3);
    const appended = await store.readAll(head, 10);
    assert.deepEqual(appended.map((e) => [e.streamId, e.type]), orders.map((o) => [orderStreamId(o.uid), 'OrderCancelled']));
  });

  it('refuses the whole request, appending nothing, when a trade fulfils one order between decision and append', async () => {
    const [first, second] = [await placed(1), await placed(2)];
    const on = racing(orderStreamId(second.uid), () => handle(store, orderDecider, orderStreamId(second.uid), trade(second, 7, second.sellAmount)));
    await assert.rejects(bulkCancel(on, [first, second]), (err: unknown) => err instanceof OrderbookError && err.errorType === 'OrderFullyExecuted');
    assert.ok(on.reads >= 4, 'decided twice');
    const log = await store.readAll(0, 100);
    assert.deepEqual(log.map((e) => e.type), ['OrderCreated', 'OrderCreated', 'TradeRecorded'], 'no OrderCancelled, not even the first order');
  });

  it('decides again and cancels all when the concurrent event changes no decision', async () => {
    const [first, second] = [await placed(1, true), await placed(2, true)];
    // Half of a partially fillable order: still open, still cancellable.
    const on = racing(orderStreamId(first.uid), () => handle(store, orderDecider, orderStreamId(first.uid), trade(first, 8, 500n)));
    const { position } = await bulkCancel(on, [first, second]);
    const log = await store.readAll(0, 100);
    assert.deepEqual(log.map((e) => e.type), ['OrderCreated', 'OrderCreated', 'TradeRecorded', 'OrderCancelled', 'OrderCancelled']);
    assert.equal(position, 5);
    assert.deepEqual(log.slice(3).map((e) => [e.streamId, e.streamVersion]), [[orderStreamId(first.uid), 3], [orderStreamId(second.uid), 2]]);
  });
});
