import type { RpcOutcome } from '../jsonrpc.js';

/** One call as it goes to an upstream: the gateway assigns upstream-side ids itself. */
export interface UpstreamCall {
  method: string;
  params: unknown[];
}

/** A connection to one Ethereum client. It never throws anything but UpstreamError for transport faults. */
export interface UpstreamTransport {
  /** A label for logs and metrics, never the URL (it may hold an API key). */
  readonly name: string;
  send(call: UpstreamCall): Promise<RpcOutcome>;
  /** Answers in the order of `calls`. */
  sendBatch(calls: UpstreamCall[]): Promise<RpcOutcome[]>;
  close(): Promise<void>;
}
