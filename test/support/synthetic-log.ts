/**
 * A synthetic order book log, valid by the event schemas, written straight into an event store: for the
 * benchmarks (replay, explorer with many open orders) and for tests that need thousands of events quickly.
 */
import type { EventStore, NewEvent } from '../../src/orderbook/store/types.js';
import { orderStreamId } from '../../src/orderbook/write/events.js';

const hex = (n: number, bytes: number) => '0x' + n.toString(16).padStart(bytes * 2, '0');
const OWNERS = Array.from({ length: 1000 }, (_, i) => hex(0x1000 + i, 20));
const TOKENS = [hex(0xa1, 20), hex(0xb2, 20), hex(0xc3, 20)];
const SIGNATURE = '0x' + 'ab'.repeat(64) + '1b';

/**
 * The events of order n: its creation and, for some, a trade (a partial fill of a partially fillable order
 * or the whole of a fill-or-kill one) and an off-chain cancellation. Valid by the schemas of
 * schemas/orderbook/events/, as the deciders would have appended them.
 */
export function orderEvents(n: number): NewEvent[] {
  const owner = OWNERS[n % OWNERS.length];
  const uid = hex(n, 32) + owner.slice(2) + 'ffffffff';
  const sellToken = TOKENS[n % 3];
  const buyToken = TOKENS[(n + 1) % 3];
  const partiallyFillable = n % 2 === 0;
  const at = new Date(1_750_000_000_000 + n * 1000).toISOString();
  const events: NewEvent[] = [
    {
      type: 'OrderCreated',
      schemaVersion: 1,
      data: {
        uid,
        owner,
        creationDate: at,
        sellToken,
        buyToken,
        receiver: null,
        sellAmount: '1000000000000000000',
        // Limit prices spread over a range, so that a market has depth (the explorer's chart, its benchmark).
        buyAmount: String(500_000_000_000_000_000n + BigInt(n % 101) * 5_000_000_000_000_000n),
        validTo: 0xffffffff,
        appData: hex(0, 32),
        feeAmount: '1000000000000000',
        kind: n % 3 === 0 ? 'buy' : 'sell',
        partiallyFillable,
        sellTokenBalance: 'erc20',
        buyTokenBalance: 'erc20',
        signingScheme: 'eip712',
        signature: SIGNATURE,
      },
    },
  ];
  if (n % 4 === 0) {
    const whole = !partiallyFillable;
    events.push({
      type: 'TradeRecorded',
      schemaVersion: 1,
      data: {
        uid,
        chain: { blockNumber: 1000 + n, blockHash: hex(n + 1, 32), logIndex: n % 7, transactionHash: hex(n + 2, 32) },
        owner,
        sellToken,
        buyToken,
        sellAmount: whole ? '1001000000000000000' : '500500000000000000',
        buyAmount: whole ? '500000000000000000' : '250000000000000000',
        feeAmount: whole ? '1000000000000000' : '500000000000000',
        sellAmountBeforeFees: whole ? '1000000000000000000' : '500000000000000000',
      },
    });
  }
  if (n % 5 === 1) {
    events.push({ type: 'OrderCancelled', schemaVersion: 1, data: { uid, cancelledAt: at, signingScheme: 'eip712', signature: SIGNATURE } });
  }
  return events;
}

/**
 * Appends `events` synthetic order events to `store`, one stream per order (orders firstOrder, firstOrder + 1,
 * ...), many appends at a time.
 */
export async function synthesiseLog(store: EventStore, events: number, firstOrder = 0): Promise<number> {
  let written = 0;
  for (let n = firstOrder; written < events; ) {
    const appends: Promise<unknown>[] = [];
    while (appends.length < 20_000 && written < events) {
      const stream = orderEvents(n).slice(0, events - written);
      appends.push(store.append(orderStreamId(String((stream[0].data as { uid: string }).uid)), stream, 'no_stream'));
      written += stream.length;
      n++;
    }
    await Promise.all(appends);
  }
  return written;
}

/** The data of a QuoteIssued event quoted at `at` (ISO time), valid by its schema. */
export function syntheticQuote(at: string) {
  return {
    sellToken: '0x' + 'a1'.padStart(40, '0'), buyToken: '0x' + 'b2'.padStart(40, '0'), receiver: null, sellAmount: '1000', buyAmount: '500',
    feeAmount: '10', validTo: 0xffffffff, appData: '0x' + '00'.repeat(32), fullAppData: null, kind: 'sell' as const, partiallyFillable: false,
    sellTokenBalance: 'erc20' as const, buyTokenBalance: 'erc20' as const, signingScheme: 'eip712' as const, from: '0x' + '11'.repeat(20),
    priceQuality: 'verified' as const, gasAmount: '100000', gasPrice: '1', sellTokenPrice: '1', expiration: at, quotedAt: at,
  };
}
