/**
 * Read model `trades`: one document per settlement Trade log, keyed by (blockHash, logIndex), in the wire
 * shape of GET /api/v1/trades. A reorganisation's ChainEventReverted removes the trade; the log coming back
 * adds it again.
 */
import type { StoredEvent } from '../../store/types.js';
import type { Projection } from '../models/types.js';
import type { Trade } from '../../../generated/orderbook/trade.js';
import { chainEventKey, parseOrderEvent } from '../../write/events.js';

function tradeKeys(event: StoredEvent): string[] {
  if (event.type === 'TradeRecorded') return [chainEventKey((event.data as { chain: { blockHash: string; logIndex: number } }).chain)];
  if (event.type === 'ChainEventReverted') {
    const data = event.data as { reverted: string; chain: { blockHash: string; logIndex: number } };
    if (data.reverted === 'TradeRecorded') return [chainEventKey(data.chain)];
  }
  return [];
}

export const tradesProjection: Projection<Trade> = {
  name: 'trades',
  // 2: txHash beside transactionHash, and the tx_hash column (GET /api/v1/transactions/{txHash}/orders).
  version: 2,
  keysOf: tradeKeys,
  apply(doc, stored) {
    const event = parseOrderEvent(stored);
    if (event.type === 'ChainEventReverted') return undefined;
    if (event.type !== 'TradeRecorded') return doc;
    const t = event.data;
    return {
      blockNumber: t.chain.blockNumber,
      logIndex: t.chain.logIndex,
      orderUid: t.uid,
      owner: t.owner,
      sellToken: t.sellToken,
      buyToken: t.buyToken,
      sellAmount: t.sellAmount,
      sellAmountBeforeFees: t.sellAmountBeforeFees,
      buyAmount: t.buyAmount,
      transactionHash: t.chain.transactionHash,
      txHash: t.chain.transactionHash,
    };
  },
  columns: {
    owner: { type: 'text', of: (t) => t.owner },
    order_uid: { type: 'text', of: (t) => t.orderUid },
    block_number: { type: 'integer', of: (t) => t.blockNumber },
    log_index: { type: 'integer', of: (t) => t.logIndex },
    tx_hash: { type: 'text', of: (t) => t.txHash },
  },
};
