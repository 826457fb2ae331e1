/**
 * Read model `trades`: one document per settlement Trade log, keyed by (blockHash, logIndex), in the wire
 * shape of GET /api/v1/trades. A reorganisation's ChainEventReverted removes the trade; the log coming back
 * adds it again.
 */
import type { Trade } from '../../../generated/orderbook/trade.js';
import { chainEventKey } from '../../write/events.js';
import { defineProjection } from './define.js';

export const tradesProjection = defineProjection<Trade, 'TradeRecorded' | 'ChainEventReverted'>({
  name: 'trades',
  // 2: txHash beside transactionHash, and the tx_hash column (GET /api/v1/transactions/{txHash}/orders).
  version: 2,
  handles: ['TradeRecorded', 'ChainEventReverted'],
  keysOf: (event) => (event.type === 'TradeRecorded' || event.data.reverted === 'TradeRecorded' ? [chainEventKey(event.data.chain)] : []),
  evolve(_doc, event) {
    if (event.type === 'ChainEventReverted') return undefined;
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
  // Trades are listed by block and log index, a page at a time: each filter's index goes on in that order.
  columns: {
    owner: { type: 'text', of: (t) => t.owner, indexWith: ['block_number', 'log_index'] },
    order_uid: { type: 'text', of: (t) => t.orderUid, indexWith: ['block_number', 'log_index'] },
    block_number: { type: 'integer', of: (t) => t.blockNumber, indexWith: ['log_index'] },
    log_index: { type: 'integer', of: (t) => t.logIndex, indexed: false },
    tx_hash: { type: 'text', of: (t) => t.txHash },
  },
});
