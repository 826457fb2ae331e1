/**
 * The commands of the chain indexer: a settlement contract log for the order (Trade, OrderInvalidated,
 * PreSignature) becomes a chain fact, and a reorganisation that removed such a log reverts it.
 *
 * All are idempotent by the log's identity (blockHash, logIndex): a log already standing appends nothing,
 * so the indexer may deliver a log more than once. A log that was reverted and comes back (the chain
 * reorganised back to its block) is recorded again.
 */
import { EVENT_SCHEMA_VERSION, type ChainEvent, type ChainEventRef, type ChainEventReverted } from './events.js';
import { standingFactIndex, type OrderState } from './order-state.js';

export interface RecordTrade {
  type: 'RecordTrade';
  data: {
    uid: string;
    chain: ChainEventRef;
    owner: string;
    sellToken: string;
    buyToken: string;
    /** As the Trade log has it: the fee included. */
    sellAmount: bigint;
    buyAmount: bigint;
    feeAmount: bigint;
  };
}

export interface InvalidateOrder {
  type: 'InvalidateOrder';
  data: { uid: string; chain: ChainEventRef };
}

export interface SetPresignature {
  type: 'SetPresignature';
  data: { uid: string; chain: ChainEventRef; signed: boolean };
}

export interface RevertChainEvent {
  type: 'RevertChainEvent';
  /** The log the reorganisation removed. */
  data: { uid: string; blockHash: string; logIndex: number };
}

function lowercaseChain(chain: ChainEventRef): ChainEventRef {
  return {
    blockNumber: chain.blockNumber,
    blockHash: chain.blockHash.toLowerCase(),
    logIndex: chain.logIndex,
    transactionHash: chain.transactionHash.toLowerCase(),
  };
}

function isStanding(state: OrderState, chain: ChainEventRef): boolean {
  return standingFactIndex(state, chain) >= 0;
}

export function decideRecordTrade(command: RecordTrade, state: OrderState): ChainEvent[] {
  const trade = command.data;
  if (isStanding(state, trade.chain)) return [];
  // The Trade log's sellAmount includes the fee, so it is never below it; 0 guards a log that breaks that.
  const beforeFees = trade.sellAmount > trade.feeAmount ? trade.sellAmount - trade.feeAmount : 0n;
  return [
    {
      type: 'TradeRecorded',
      schemaVersion: EVENT_SCHEMA_VERSION,
      data: {
        uid: trade.uid.toLowerCase(),
        chain: lowercaseChain(trade.chain),
        owner: trade.owner.toLowerCase(),
        sellToken: trade.sellToken.toLowerCase(),
        buyToken: trade.buyToken.toLowerCase(),
        sellAmount: trade.sellAmount.toString(),
        buyAmount: trade.buyAmount.toString(),
        feeAmount: trade.feeAmount.toString(),
        sellAmountBeforeFees: beforeFees.toString(),
      },
    },
  ];
}

export function decideInvalidateOrder(command: InvalidateOrder, state: OrderState): ChainEvent[] {
  const { uid, chain } = command.data;
  if (isStanding(state, chain)) return [];
  return [
    {
      type: 'OrderInvalidated',
      schemaVersion: EVENT_SCHEMA_VERSION,
      data: { uid: uid.toLowerCase(), chain: lowercaseChain(chain) },
    },
  ];
}

export function decideSetPresignature(command: SetPresignature, state: OrderState): ChainEvent[] {
  const { uid, chain, signed } = command.data;
  if (isStanding(state, chain)) return [];
  return [
    {
      type: signed ? 'OrderPresigned' : 'PresignatureRevoked',
      schemaVersion: EVENT_SCHEMA_VERSION,
      data: { uid: uid.toLowerCase(), chain: lowercaseChain(chain) },
    },
  ];
}

/** ChainEventReverted for the standing fact of that log; nothing when there is none (unknown or reverted). */
export function decideRevertChainEvent(command: RevertChainEvent, state: OrderState): ChainEventReverted[] {
  const index = standingFactIndex(state, command.data);
  if (index < 0) return [];
  const fact = state.chainFacts[index];
  return [
    {
      type: 'ChainEventReverted',
      schemaVersion: EVENT_SCHEMA_VERSION,
      data: { uid: command.data.uid.toLowerCase(), chain: fact.chain, reverted: fact.type },
    },
  ];
}
