/**
 * The order book network as the order book sees it (src/orderbook/chain/port.ts), wired from the gateway's
 * network of ORDERBOOK_NETWORK: calls through the network's relay (the gateway's cache, coalescing of
 * identical reads, its limits, then the pool's failover), under a budget of the order book's own
 * (ORDERBOOK_CHAIN_CALLS_PER_SECOND: calls over it wait in a bounded queue, then fail), so that however
 * much anonymous order book traffic asks of the chain, it spends a known share of the providers' quota.
 * Heads come from the network's head tracker, and, when it is the embedded anvil, the dev chain hook
 * deploys the GPv2 contracts (src/wiring/gpv2.ts) and hears of the chain's restarts.
 */
import { Counter, Gauge } from 'prom-client';
import { RateLimiterMemory, RateLimiterQueue } from 'rate-limiter-flexible';
import type { NetworkEntry } from '../gateway/gateway.js';
import { RpcError, UpstreamError } from '../gateway/errors.js';
import type { CheckedRequest, RpcOutcome } from '../gateway/jsonrpc.js';
import type { OrderbookNetwork } from '../orderbook/chain/port.js';
import { chainRpcOver, type RpcAnswer, type RpcCall, type RpcTransport } from '../orderbook/chain/rpc.js';
import { bootstrapDevChain } from './gpv2.js';
import { registry } from '../shared/metrics.js';

export interface ChainBudget {
  /** Calls per second; 0: unlimited. */
  callsPerSecond: number;
  /** Calls that may wait for the budget. */
  queue: number;
}

let budgetMetrics: { calls: Counter<'outcome'>; waiting: Gauge } | undefined;

/** The budget's metrics, registered with the first budget (not at import). */
function metricsOfBudget() {
  return (budgetMetrics ??= {
    calls: new Counter({
      name: 'ethgate_orderbook_chain_calls_total',
      help: "The order book's chain calls through the relay: sent, or refused because its budget's queue was full",
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    waiting: new Gauge({
      name: 'ethgate_orderbook_chain_calls_waiting',
      help: "The order book's chain calls waiting for its budget (ORDERBOOK_CHAIN_CALLS_PER_SECOND)",
      registers: [registry],
    }),
  });
}

/** A relay answer as the chain port takes it. */
function answerOf(outcome: RpcOutcome | RpcError): RpcAnswer {
  if (outcome instanceof RpcError) return { error: outcome.toObject() };
  return outcome.error === undefined ? { result: outcome.result } : { error: outcome.error };
}

let ids = 0;
const checked = (call: RpcCall): CheckedRequest => ({ id: ++ids, method: call.method, params: call.params });

/** The relay of `entry` as the order book's transport, each call charged to the budget first. */
export function budgetedRelay({ network, relay }: NetworkEntry, budget: ChainBudget): RpcTransport {
  const metrics = metricsOfBudget();
  const sent = metrics.calls.labels('sent');
  const refused = metrics.calls.labels('refused');
  const queue =
    budget.callsPerSecond > 0
      ? new RateLimiterQueue(new RateLimiterMemory({ points: budget.callsPerSecond, duration: 1, keyPrefix: `ethgate:obchain:${network.name}` }), {
          maxQueueSize: budget.queue,
        })
      : undefined;
  /** Waits for `calls` calls of the budget (a batch larger than a second's budget takes a whole second's). */
  const spend = async (calls: number): Promise<void> => {
    if (!queue) return sent.inc(calls);
    metrics.waiting.inc();
    try {
      await queue.removeTokens(Math.min(calls, budget.callsPerSecond));
    } catch {
      refused.inc(calls);
      throw new Error(`the order book's chain budget is spent (${budget.callsPerSecond} calls/s, ${budget.queue} waiting)`);
    } finally {
      metrics.waiting.dec();
    }
    sent.inc(calls);
  };
  return {
    async send(call) {
      await spend(1);
      return answerOf(await relay.call(checked(call)));
    },
    async sendBatch(calls) {
      await spend(calls.length);
      const outcomes = await relay.batch(calls.map(checked));
      // A transport fault fails the batch, as the pool's batch did; a refusal of one call is its answer.
      const fault = outcomes.find((o): o is UpstreamError => o instanceof UpstreamError);
      if (fault) throw fault;
      return outcomes.map(answerOf);
    },
  };
}

export function orderbookNetworkOf(entry: NetworkEntry, budget: ChainBudget): OrderbookNetwork {
  const { network } = entry;
  const anvil = network.anvil;
  return {
    name: network.name,
    rpc: chainRpcOver(budgetedRelay(entry, budget)),
    heads: network.tracker,
    ...(anvil
      ? {
          devChain: {
            // Impersonating the authenticator's manager takes anvil's own methods: straight to anvil.
            bootstrap: (rpc) => bootstrapDevChain(rpc, { controlUrl: anvil.httpUrl }),
            onRestart: (listener: () => void) => void anvil.on('restarted', listener),
          },
        }
      : {}),
  };
}
