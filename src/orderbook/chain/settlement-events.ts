/**
 * The GPv2Settlement events the order book learns on-chain facts from (Trade, OrderInvalidated,
 * PreSignature, Settlement), decoded with the contract's own ABI into typed records that carry where they
 * happened. Addresses and order UIDs are lowercase 0x-hex; amounts are bigints.
 */
import { Interface, type InterfaceAbi } from 'ethers';
import { gpv2Artifact } from '../../contracts/artifacts.js';
import { ChainError, fromQuantity } from './rpc.js';

/** A log as eth_getLogs returns it. */
export interface RawLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  transactionIndex: string;
  logIndex: string;
  removed?: boolean;
}

export interface LogPosition {
  blockNumber: number;
  blockHash: string;
  transactionHash: string;
  transactionIndex: number;
  logIndex: number;
}

export type SettlementEvent =
  | {
      type: 'Trade';
      owner: string;
      sellToken: string;
      buyToken: string;
      /** Executed sell amount including the fee (sellAmountBeforeFees = sellAmount - feeAmount). */
      sellAmount: bigint;
      buyAmount: bigint;
      feeAmount: bigint;
      orderUid: string;
    }
  | { type: 'OrderInvalidated'; owner: string; orderUid: string }
  | { type: 'PreSignature'; owner: string; orderUid: string; signed: boolean }
  | { type: 'Settlement'; solver: string };

export type SettlementEventType = SettlementEvent['type'];

export type DecodedLog = LogPosition & SettlementEvent;

const SETTLEMENT_EVENT_TYPES: readonly SettlementEventType[] = ['Trade', 'OrderInvalidated', 'PreSignature', 'Settlement'];

interface SettlementAbi {
  contract: Interface;
  topics: Readonly<Record<SettlementEventType, string>>;
  typeByTopic: Map<string, SettlementEventType>;
}

let abi: SettlementAbi | undefined;

/** The contract's ABI and its events' topics, read from the artifact on first use. */
function settlementAbi(): SettlementAbi {
  if (abi) return abi;
  const contract = new Interface(gpv2Artifact('GPv2Settlement').abi as InterfaceAbi);
  const topics = Object.fromEntries(
    SETTLEMENT_EVENT_TYPES.map((name) => [name, contract.getEvent(name)!.topicHash]),
  ) as Record<SettlementEventType, string>;
  const typeByTopic = new Map(Object.entries(topics).map(([name, topic]) => [topic, name as SettlementEventType]));
  return (abi = { contract, topics, typeByTopic });
}

/** topic0 of each event, from the contract's ABI. */
export function settlementTopics(): Readonly<Record<SettlementEventType, string>> {
  return settlementAbi().topics;
}

/** The identity of a log on one chain: the key that makes consuming it idempotent. */
export function logKey(log: Pick<LogPosition, 'blockHash' | 'logIndex'>): string {
  return `${log.blockHash}:${log.logIndex}`;
}

/**
 * The decoded event, or null when topic0 is none of the four (e.g. the contract's Interaction event).
 * A log that has one of their topics but cannot be decoded is a ChainError: the address is not GPv2Settlement.
 */
export function decodeSettlementLog(log: RawLog): DecodedLog | null {
  const { contract, typeByTopic } = settlementAbi();
  const type = typeByTopic.get(log.topics[0]?.toLowerCase() ?? '');
  if (!type) return null;
  let args;
  try {
    args = contract.decodeEventLog(type, log.data, log.topics);
  } catch (err) {
    throw new ChainError(`log ${log.logIndex} of block ${log.blockHash} is not a GPv2Settlement ${type} event: ${(err as Error).message}`);
  }
  const position: LogPosition = {
    blockNumber: fromQuantity(log.blockNumber, 'log blockNumber'),
    blockHash: log.blockHash.toLowerCase(),
    transactionHash: log.transactionHash.toLowerCase(),
    transactionIndex: fromQuantity(log.transactionIndex, 'log transactionIndex'),
    logIndex: fromQuantity(log.logIndex, 'log logIndex'),
  };
  const address = (value: string) => value.toLowerCase();
  switch (type) {
    case 'Trade':
      return {
        ...position,
        type,
        owner: address(args.owner),
        sellToken: address(args.sellToken),
        buyToken: address(args.buyToken),
        sellAmount: args.sellAmount,
        buyAmount: args.buyAmount,
        feeAmount: args.feeAmount,
        orderUid: args.orderUid.toLowerCase(),
      };
    case 'OrderInvalidated':
      return { ...position, type, owner: address(args.owner), orderUid: args.orderUid.toLowerCase() };
    case 'PreSignature':
      return { ...position, type, owner: address(args.owner), orderUid: args.orderUid.toLowerCase(), signed: args.signed };
    case 'Settlement':
      return { ...position, type, solver: address(args.solver) };
  }
}
