/**
 * The path of a checked request from a channel to the network's upstreams. Channels call `call` for one
 * request and `batch` for several; both give what the upstream answered (result or error object). A fault
 * of the gateway or of the upstream transport is an RpcError: thrown by `call`, returned in place by `batch`.
 *
 * On the way: an omitted block parameter written as `latest` (upstream/consistency.ts), the eth_getLogs range
 * limit, then for reads the cache (final results only, see cache/policy.ts) and coalescing of identical reads
 * in flight; writes and filter calls go straight to the pool, which picks the upstream and fails over.
 * The envelope, the params schemas and the method allow list were checked before, by the channel
 * (channels/answer.ts, channels/rest.ts).
 */
import type { CheckedRequest, RpcOutcome } from './jsonrpc.js';
import { RpcError } from './errors.js';
import type { Network } from './network.js';
import type { UpstreamCall } from './upstream/types.js';
import { isFilterMethod, isRead } from './failsafe/policy.js';
import type { HedgeCharge } from './failsafe/hedge.js';
import { cacheKey, cacheRule, isCacheable, mayHaveCached, safeBlockOf, type CacheRule } from './cache/policy.js';
import type { ResultCache, CacheTier, CachedResult } from './cache/store.js';
import { Coalescer } from './cache/coalesce.js';
import { withDefaultBlock } from './upstream/consistency.js';
import { checkLogsRange, splitLogsRange, type ChainPosition } from './limits.js';
import { metrics, methodLabel } from './metrics.js';

export interface RelayOptions {
  /** Absent or disabled: nothing is cached. */
  cache?: ResultCache;
  reorgDepth: number;
  coalesce: boolean;
  maxLogsBlockRange: number;
  /** GETLOGS_SPLIT_BLOCKS: over-range eth_getLogs split into parts of this many blocks; 0 refuses them. */
  getLogsSplitBlocks?: number;
}

/** Parts of a split eth_getLogs in flight at once (a provider may count them against a rate limit). */
const LOGS_PARTS_IN_FLIGHT = 4;

/** A read that may be answered from the cache, with what deciding that needs. */
interface Cacheable {
  rule: CacheRule;
  key: string;
}

export class Relay {
  private readonly cache: ResultCache | undefined;
  private readonly coalescer: Coalescer | undefined;
  /**
   * Networks share the cache (and Redis may be shared by deployments): keys start with network and chain,
   * and the chain's life: an embedded dev chain that restarted empty is a new chain under the same id.
   */
  private keyPrefix: string;
  private lives = 0;
  /** Cache lookups of this network, for GET /status. */
  readonly cacheCounts = { hits: 0, misses: 0 };

  constructor(
    readonly network: Network,
    private readonly options: RelayOptions,
  ) {
    this.cache = options.cache?.enabled ? options.cache : undefined;
    this.coalescer = options.coalesce ? new Coalescer() : undefined;
    this.keyPrefix = `${network.name}/${network.chainId}/`;
    // What was final on the embedded chain before it restarted empty is gone: nothing cached before is used.
    network.anvil?.on('restarted', () => {
      this.keyPrefix = `${network.name}/${network.chainId}/r${++this.lives}-${Date.now().toString(36)}/`;
    });
  }

  /**
   * Not an async function, so that the common path adds no promise of its own; it never throws. `charge`
   * (the caller's rate limits) pays for a hedged read's extra upstream call (failsafe/hedge.ts).
   */
  call(request: CheckedRequest, charge?: HedgeCharge): Promise<RpcOutcome> {
    const call = this.upstreamCall(request);
    const parts = this.logsParts(call);
    if (parts) return this.splitLogs(request, parts, charge);
    try {
      this.checkLimits(call);
    } catch (err) {
      return Promise.reject(err);
    }
    if (!isRead(call.method)) return this.network.pool.send(call);
    if (call.method === 'eth_blockNumber') return this.read(call, undefined, charge).then((o) => this.network.blockNumberAnswer(o));
    const cacheable = this.cacheable(call);
    return cacheable ? this.cachedRead(call, cacheable, charge) : this.read(call, undefined, charge);
  }

  /**
   * Several requests, answered in their order: cache hits are taken out, filter calls go on their own
   * (they are tied to one upstream), and the rest travel as one upstream batch. A transport fault fails
   * each request of that batch; a refused request (eth_getLogs range) gets its own error.
   */
  async batch(requests: CheckedRequest[], charge?: HedgeCharge): Promise<(RpcOutcome | RpcError)[]> {
    if (requests.length === 0) return [];
    if (requests.length === 1) return [await this.call(requests[0], charge).catch(inPlace)];

    const answers: (RpcOutcome | RpcError)[] = new Array(requests.length);
    const pending: { index: number; call: UpstreamCall; cacheable: Cacheable | undefined }[] = [];
    const apart: Promise<void>[] = [];
    await Promise.all(
      requests.map(async (request, index) => {
        const call = this.upstreamCall(request);
        if (this.logsParts(call)) {
          apart.push(this.call(request, charge).then((o) => void (answers[index] = o), (e) => void (answers[index] = inPlace(e))));
          return;
        }
        try {
          this.checkLimits(call);
        } catch (err) {
          answers[index] = inPlace(err);
          return;
        }
        if (isFilterMethod(call.method)) {
          apart.push(this.network.pool.send(call).then((o) => void (answers[index] = o), (e) => void (answers[index] = inPlace(e))));
          return;
        }
        const cacheable = isRead(call.method) ? this.cacheable(call) : undefined;
        const hit = cacheable && (await this.lookup(call.method, cacheable));
        if (hit !== undefined) answers[index] = { result: hit.value, raw: hit.text };
        else pending.push({ index, call, cacheable });
      }),
    );
    if (pending.length > 0) {
      pending.sort((a, b) => a.index - b.index);
      try {
        const outcomes =
          pending.length === 1
            ? [await this.network.pool.send(pending[0].call, charge)]
            : await this.network.pool.sendBatch(pending.map((p) => p.call));
        pending.forEach((p, i) => {
          answers[p.index] = p.call.method === 'eth_blockNumber' ? this.network.blockNumberAnswer(outcomes[i]) : outcomes[i];
          if (p.cacheable) this.keep(p.call, p.cacheable, outcomes[i]);
        });
      } catch (err) {
        const error = inPlace(err);
        for (const p of pending) answers[p.index] = error;
      }
    }
    await Promise.all(apart);
    return answers;
  }

  // --- steps

  /** The call as it goes upstream: an omitted block written as `latest`, and `latest` pinned to the head. */
  private upstreamCall(request: CheckedRequest): UpstreamCall {
    return this.network.pinLatest(withDefaultBlock({ method: request.method, params: request.params }));
  }

  /** The parts an over-range eth_getLogs is split into, when GETLOGS_SPLIT_BLOCKS is on. */
  private logsParts(call: UpstreamCall): unknown[][] | undefined {
    if (call.method !== 'eth_getLogs' || !this.options.getLogsSplitBlocks) return undefined;
    return splitLogsRange(call.params, this.options.maxLogsBlockRange, this.options.getLogsSplitBlocks, this.position());
  }

  /**
   * The parts, each an ordinary eth_getLogs (cached when final, coalesced), LOGS_PARTS_IN_FLIGHT at a time;
   * their logs in order as one answer, or the first error.
   */
  private async splitLogs(request: CheckedRequest, parts: unknown[][], charge: HedgeCharge | undefined): Promise<RpcOutcome> {
    const outcomes: RpcOutcome[] = new Array(parts.length);
    let next = 0;
    const worker = async () => {
      while (next < parts.length) {
        const i = next++;
        outcomes[i] = await this.call({ ...request, params: parts[i] }, charge);
        if (outcomes[i].error !== undefined) next = parts.length;
      }
    };
    await Promise.all(Array.from({ length: Math.min(LOGS_PARTS_IN_FLIGHT, parts.length) }, worker));
    const failed = outcomes.find((o) => o?.error !== undefined);
    if (failed) return failed;
    return { result: outcomes.flatMap((o) => (Array.isArray(o.result) ? o.result : [])) };
  }

  private async cachedRead(call: UpstreamCall, cacheable: Cacheable, charge: HedgeCharge | undefined): Promise<RpcOutcome> {
    const hit = await this.lookup(call.method, cacheable);
    return hit !== undefined ? { result: hit.value, raw: hit.text } : this.read(call, cacheable, charge);
  }

  private checkLimits(call: UpstreamCall): void {
    if (call.method === 'eth_getLogs') checkLogsRange(call.params, this.options.maxLogsBlockRange, this.position());
  }

  /** Where the network's chain is: its head and finalized block, against which block tags resolve. */
  private position(): ChainPosition {
    return { head: this.network.head, finalized: this.network.pool.finalizedBlock };
  }

  /** The highest block whose results are final (see cache/policy.ts). */
  private safeBlock(): number | undefined {
    return safeBlockOf(this.network.head, this.network.pool.finalizedBlock, this.options.reorgDepth);
  }

  private cacheable(call: UpstreamCall): Cacheable | undefined {
    if (!this.cache) return undefined;
    const rule = cacheRule(call.method);
    if (!rule || !mayHaveCached(rule, call.params, this.safeBlock())) return undefined;
    return { rule, key: this.keyPrefix + cacheKey(call.method, call.params) };
  }

  /** The cached result, from memory or else Redis; undefined on a miss. */
  private async lookup(method: string, { key }: Cacheable): Promise<CachedResult | undefined> {
    const cache = this.cache!;
    let tier: CacheTier = 'memory';
    let value = cache.fromMemory(key);
    if (value === undefined) {
      tier = 'redis';
      value = await cache.fromRedis(key);
    }
    // Only cacheable methods get here: a fixed set, so the method is a bounded label as it is.
    if (value === undefined) {
      this.cacheCounts.misses++;
      metrics.cacheMisses.cell(this.network.name, method).pending++;
    } else {
      this.cacheCounts.hits++;
      metrics.cacheHits.cell(this.network.name, method, tier).pending++;
    }
    return value;
  }

  /**
   * An upstream read, shared with identical reads in flight (a hedge is charged to the caller whose read
   * went upstream); a final result is kept in the cache.
   */
  private read(call: UpstreamCall, cacheable: Cacheable | undefined, charge: HedgeCharge | undefined): Promise<RpcOutcome> {
    const fetch = cacheable
      ? () => this.network.pool.send(call, charge).then((outcome) => this.keep(call, cacheable, outcome))
      : () => this.network.pool.send(call, charge);
    if (!this.coalescer) return fetch();
    const key = cacheable?.key ?? `${call.method}:${JSON.stringify(call.params)}`;
    return this.coalescer.run(key, fetch, () => metrics.coalesced.cell(this.network.name, methodLabel(call.method)).pending++);
  }

  private keep(call: UpstreamCall, { rule, key }: Cacheable, outcome: RpcOutcome): RpcOutcome {
    if (outcome.error === undefined && isCacheable(rule, call.method, call.params, outcome.result, this.safeBlock())) {
      this.cache!.store(key, outcome.result);
      metrics.cacheStores.labels(this.network.name, call.method).inc();
    }
    return outcome;
  }
}

/** A gateway or transport fault as the answer of one request of a batch. */
function inPlace(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  throw err;
}
