/**
 * The order book's only way to the chain: a minimal JSON-RPC client interface. The service backs it with
 * the gateway's upstream pool of the order book network (`chainRpcOver(pool)`, wired in
 * src/wiring/orderbook-network.ts), so the order book reads the chain through the same failover as every client
 * of the gateway, without knowing the gateway.
 */
import type { Interface, Result } from 'ethers';
import type { JsonRpcErrorObject } from '../../generated/jsonrpc/response.js';

export interface RpcCall {
  method: string;
  params: unknown[];
}

/** One answer of a node: a result, or the node's JSON-RPC error object. */
export type RpcAnswer = { result: unknown; error?: undefined } | { error: JsonRpcErrorObject; result?: undefined };

export interface ChainRpc {
  /** The call's result; a node's error answer or a transport fault is a ChainError. */
  call(method: string, params: unknown[]): Promise<unknown>;
  /**
   * One answer per call, in the order of `calls`, sent as one JSON-RPC batch. A node's error for one call
   * is that call's answer; only a transport fault (a ChainError) fails the whole batch.
   */
  batch(calls: RpcCall[]): Promise<RpcAnswer[]>;
}

/** The one error type of the chain layer. `rpcError` is the node's error object when the node answered one. */
export class ChainError extends Error {
  constructor(
    message: string,
    readonly rpcError?: { code: number; message: string; data?: unknown },
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Something that sends JSON-RPC calls with failover (the gateway's upstream pool, or one upstream). */
export interface RpcTransport {
  send(call: RpcCall): Promise<RpcAnswer>;
  sendBatch(calls: RpcCall[]): Promise<RpcAnswer[]>;
}

/** A ChainRpc over `pool`: its transport faults become ChainErrors naming the call. */
export function chainRpcOver(pool: RpcTransport): ChainRpc {
  const transport = async <T>(what: string, io: () => Promise<T>): Promise<T> => {
    try {
      return await io();
    } catch (err) {
      throw new ChainError(`${what}: ${(err as Error).message}`, undefined, { cause: err });
    }
  };
  return {
    async call(method, params) {
      const outcome = await transport(method, () => pool.send({ method, params }));
      if (outcome.error) throw new ChainError(`${method} failed: ${outcome.error.message}`, outcome.error);
      return outcome.result;
    },
    async batch(calls) {
      if (calls.length === 0) return [];
      return transport(`batch of ${calls.length}`, () => pool.sendBatch(calls));
    },
  };
}

/** Whether a node's error answer to an eth_call is the contract reverting (rather than the node failing). */
export function isRevert(error: { code: number; message: string }): boolean {
  return error.code === 3 || /revert/i.test(error.message);
}

/**
 * Whether a node's error answer to an eth_call is the call's execution failing in the EVM (out of gas, an
 * invalid or undefined opcode, a bad jump, the stack): the contract's fault, for that call alone, as the
 * nodes word it (anvil: "EVM error OutOfGas", geth: "out of gas", "invalid opcode: INVALID", Nethermind:
 * "BadInstruction"). A revert is one too. A node that cannot serve the call at all answers otherwise.
 */
export function isExecutionFailure(error: { code: number; message: string }): boolean {
  return (
    isRevert(error) ||
    /evm error|out of gas|outofgas|invalid opcode|invalidfeopcode|opcode .*not defined|not ?activated|invalid ?jump|stack ?(underflow|overflow|limit)|badinstruction|write ?protection|static state change/i.test(
      error.message,
    )
  );
}

/**
 * The decoded result of an eth_call answer; null when the contract rejected the call: a revert, or an
 * answer `fn` cannot decode (0x from an address without code). Any other error answer (transport, a node
 * that cannot serve the block) is a ChainError naming `what`.
 */
export function callResult(answer: RpcAnswer, iface: Interface, fn: string, what: string): Result | null {
  if (answer.error) {
    if (isRevert(answer.error)) return null;
    throw new ChainError(`${what} failed: ${answer.error.message}`, answer.error);
  }
  if (typeof answer.result !== 'string') return null;
  try {
    return iface.decodeFunctionResult(fn, answer.result);
  } catch {
    return null;
  }
}

/** The result of one batch answer, or a ChainError naming the call. */
export function resultOf(answer: RpcAnswer, what: string): unknown {
  if (answer.error) throw new ChainError(`${what} failed: ${answer.error.message}`, answer.error);
  return answer.result;
}

export function toQuantity(n: number | bigint): string {
  return `0x${n.toString(16)}`;
}

export function fromQuantity(value: unknown, what: string): number {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value)) {
    throw new ChainError(`${what} is not a hex quantity: ${JSON.stringify(value)}`);
  }
  const n = Number.parseInt(value, 16);
  if (!Number.isSafeInteger(n)) throw new ChainError(`${what} ${value} is too large`);
  return n;
}

/** The chain's head block number (eth_blockNumber). */
export async function headNumber(rpc: ChainRpc): Promise<number> {
  return fromQuantity(await rpc.call('eth_blockNumber', []), 'eth_blockNumber');
}

/** Sends `calls` as consecutive batches of at most `size` calls (nodes limit batch sizes). */
export async function batchInChunks(rpc: ChainRpc, calls: RpcCall[], size: number): Promise<RpcAnswer[]> {
  const answers: RpcAnswer[] = [];
  for (let i = 0; i < calls.length; i += size) answers.push(...(await rpc.batch(calls.slice(i, i + size))));
  return answers;
}
