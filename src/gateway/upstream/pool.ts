/**
 * The upstreams of one network and the choice among them.
 *
 * - Rotation: healthy primaries share calls by weight (smooth weighted round robin); fallbacks serve only
 *   while no primary is healthy; when nothing is healthy every upstream is tried, primaries first, rather
 *   than failing without trying.
 * - Health: every `checkIntervalMs` each upstream is asked eth_blockNumber (and once eth_chainId). One that
 *   does not answer, serves another chain, lags more than `maxLagBlocks` behind the best head, or fails more
 *   than `maxErrorRate` of its calls over the error window is taken out; a health check that finds it
 *   answering and caught up puts it back. A refused connection takes it out at once.
 * - Failover: a call that meets a transport fault goes to the next candidate when failsafe/policy.ts says
 *   repeating it is harmless; a read answered "node is behind" may go on too (RETRY_BEHIND_ERRORS).
 * - Hedging (HEDGE_QUANTILE, off by default): a read whose first upstream is slower than the quantile of the
 *   method's recent latencies is asked of the next candidate too, and the first answer wins (failsafe/hedge.ts).
 * - Busy: an upstream that answers HTTP 429 or a rate-limit error (failsafe/policy.ts) is at its provider's
 *   limit, not broken: the call goes to the next candidate, and that upstream is tried last for a backoff
 *   (UPSTREAM_BUSY_BACKOFF_MS, doubling while it stays busy, its Retry-After when longer; health.ts). It is
 *   not counted as a failure and stays in rotation; when every candidate is busy the last busy answer is
 *   the client's. An answer over MAX_UPSTREAM_ANSWER_BYTES is not counted either (any client can ask for one).
 * - Filters (eth_newFilter family) are node state: they are created on the first healthy primary in
 *   configuration order and later calls with their id go to the upstream that created them.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import type { UpstreamHealthConfig } from '../../generated/config.js';
import type { Logger } from '../../shared/logger.js';
import { UpstreamError } from '../errors.js';
import type { RpcOutcome } from '../jsonrpc.js';
import { FILTER_CREATE_METHODS, FILTER_USE_METHODS, countsAgainstHealth, isBehindAnswer, isBusyAnswer, mayRetry } from '../failsafe/policy.js';
import { RecentLatencies, hedgeDelayMs, hedgingOn, mayHedge, type HedgeCharge, type HedgeSettings } from '../failsafe/hedge.js';
import { metrics, methodLabel, type CounterCell, type HistogramCell } from '../metrics.js';
import type { UpstreamCall, UpstreamTransport } from './types.js';
import { ErrorWindow, busyBackoff, excessLag, tooManyErrors, weightedPick } from './health.js';
import { LatencyWindow, redactUrl } from './latency.js';
import { nullMeansBehind, requestedBlock } from './consistency.js';
import type { UpstreamReport } from '../../generated/status.js';

export type UpstreamRole = 'primary' | 'fallback';

export interface PoolMember {
  transport: UpstreamTransport;
  role?: UpstreamRole;
  weight?: number;
  /** Where it is, for GET /status (shown redacted). */
  url?: string;
}

export interface PoolOptions {
  network: string;
  chainId: number;
  health: UpstreamHealthConfig;
  /** Hedged reads; absent or quantile 0: off. */
  hedge?: HedgeSettings;
  /** First backoff of an upstream that said it is busy (UPSTREAM_BUSY_BACKOFF_MS; default 2 s). */
  busyBackoffMs?: number;
  logger: Logger;
}

/** What the pool knows of one upstream, for /healthz, tests and logs. */
export interface UpstreamStatus {
  name: string;
  role: UpstreamRole;
  weight: number;
  healthy: boolean;
  /** Why it is out of rotation. */
  reason?: string;
  head?: number;
}

/** Upstreams' heads as another part (the head tracker) knows them. */
export interface HeadReports {
  /** The upstream's current head, undefined when not known to be current. */
  upstreamHead(name: string): number | undefined;
  /** Brings what upstreamHead says up to date: asks the upstreams it has not heard from lately, or all. */
  refresh(all: boolean): Promise<void>;
  /** The highest block number the network is known to have. */
  readonly height: number | undefined;
}

/** One upstream in GET /status (schemas/status.schema.json). */
export type { UpstreamReport } from '../../generated/status.js';

/** The metrics of one upstream and method, looked up once (see metrics.ts on why). */
interface CallMetrics {
  latency: HistogramCell;
  result: CounterCell;
  error: CounterCell;
  failed: CounterCell;
}

class Upstream {
  inRotation = true;
  reason: string | undefined;
  head: number | undefined;
  chainChecked = false;
  /** Until when (performance.now()) it is tried last, having said it is busy; its current backoff. */
  busyUntil = 0;
  busyBackoffMs = 0;
  readonly errors: ErrorWindow;
  readonly latency = new LatencyWindow();
  private readonly callMetrics = new Map<string, CallMetrics>();

  constructor(
    readonly transport: UpstreamTransport,
    readonly role: UpstreamRole,
    readonly weight: number,
    errorWindowMs: number,
    private readonly network: string,
    readonly url: string | undefined,
  ) {
    this.errors = new ErrorWindow(errorWindowMs);
  }

  get name(): string {
    return this.transport.name;
  }

  /** Metrics for calls of `method` ("batch" for the latency of a batch). */
  metricsFor(method: string): CallMetrics {
    const label = method === 'batch' ? method : methodLabel(method);
    let found = this.callMetrics.get(label);
    if (!found) {
      const cell = (outcome: string) => metrics.upstreamCalls.cell(this.network, this.name, label, outcome);
      found = {
        latency: metrics.upstreamDuration.cell(this.network, this.name, label),
        result: cell('result'),
        error: cell('error'),
        failed: cell('failed'),
      };
      this.callMetrics.set(label, found);
    }
    return found;
  }
}

/** How long start() waits for the first health check: a hanging upstream must not hold up the service. */
const FIRST_CHECK_WAIT_MS = 2_000;

/** How long a filter id is remembered after its last use (nodes drop filters idle for 5 minutes). */
const FILTER_IDLE_MS = 15 * 60_000;

export class UpstreamPool {
  private readonly members: Upstream[];
  private healthyPrimaries: Upstream[] = [];
  private healthyFallbacks: Upstream[] = [];
  private weights: number[] = [];
  private scores: number[] = [];
  private readonly filterHomes = new LRUCache<string, Upstream>({ max: 10_000, ttl: FILTER_IDLE_MS, updateAgeOnGet: true });
  private bestHead: number | undefined;
  private finalized: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private probing: Promise<void> | undefined;
  private readonly log: Logger;
  private heads: HeadReports | undefined;
  /** Hedging's settings when it is on, and each method's recent answer times (methods are a bounded set). */
  private readonly hedge: HedgeSettings | undefined;
  private readonly latencies = new Map<string, RecentLatencies>();
  /** The latest busyUntil of any upstream: before it, candidates are reordered (busyLast). */
  private busyHorizon = 0;

  constructor(
    members: PoolMember[],
    private readonly options: PoolOptions,
  ) {
    if (members.length === 0) throw new Error('a network needs at least one upstream');
    this.members = members.map(
      (m) =>
        new Upstream(m.transport, m.role ?? 'primary', m.weight ?? 1, options.health.errorWindowMs, options.network, m.url),
    );
    this.log = options.logger.child({ network: options.network });
    this.hedge = hedgingOn(options.hedge) ? options.hedge : undefined;
    for (const m of this.members) metrics.upstreamHealthy.labels(options.network, m.name, m.role).set(1);
    this.rebuildRotation();
  }

  /** Runs the first health check (so the head is known before traffic) and schedules the next ones. */
  async start(): Promise<void> {
    await Promise.race([this.checkHealth(false), sleep(FIRST_CHECK_WAIT_MS, undefined, { ref: false })]);
    this.timer = setInterval(() => void this.checkHealth(false), this.options.health.checkIntervalMs);
    this.timer.unref();
  }

  /**
   * Where health checks find an upstream's head without asking it: the network's head tracker, which polls
   * or subscribes anyway. An upstream whose head it does not know currently is asked eth_blockNumber.
   */
  useHeads(heads: HeadReports): void {
    this.heads = heads;
  }

  /** Whether any upstream is in rotation (healthy at the last check, not failing too many calls). */
  get serving(): boolean {
    return this.healthyPrimaries.length > 0 || this.healthyFallbacks.length > 0;
  }

  /** Number of upstreams. */
  get size(): number {
    return this.members.length;
  }

  /** The highest block any answering upstream reported at the last health check. */
  get head(): number | undefined {
    return this.bestHead;
  }

  /** The `finalized` block of the upstream with the best head, when it knows one. */
  get finalizedBlock(): number | undefined {
    return this.finalized;
  }

  status(): UpstreamStatus[] {
    return this.members.map((m) => ({
      name: m.name,
      role: m.role,
      weight: m.weight,
      healthy: m.inRotation,
      ...(m.reason === undefined ? {} : { reason: m.reason }),
      ...(m.head === undefined ? {} : { head: m.head }),
    }));
  }

  /** Each upstream as GET /status shows it; `networkHead` is the network's head the lag is measured from. */
  report(networkHead: number | undefined): UpstreamReport[] {
    const now = performance.now();
    return this.members.map((m) => {
      const { failures, total } = m.errors.counts(now);
      const head = this.headOf(m);
      const lag = head === undefined || networkHead === undefined ? null : Math.max(0, networkHead - head);
      return {
        id: m.name.replace(/\//g, '-'),
        url: m.url === undefined ? null : redactUrl(m.url),
        transport: m.url !== undefined && /^wss?:/i.test(m.url) ? 'ws' : 'http',
        head: head ?? null,
        lag,
        latencyMs: m.latency.quantiles(),
        errorRate: total === 0 ? 0 : Math.round((failures / total) * 1000) / 1000,
        state: m.inRotation ? 'in' : 'out',
        ...(m.inRotation ? {} : { reason: m.reason ?? 'out of rotation' }),
      };
    });
  }

  /** One call; `charge` (the caller's rate limits) pays for a hedge, which is not sent when it refuses. */
  send(call: UpstreamCall, charge?: HedgeCharge): Promise<RpcOutcome> {
    const candidates = this.candidatesFor(call);
    // One candidate: nothing to fail over to, so no loop (and no promise of its own).
    if (candidates.length === 1 && !FILTER_CREATE_METHODS.has(call.method)) return this.attempt(candidates[0], call);
    if (this.hedge && mayHedge(call.method)) return this.sendHedged(call, candidates, this.hedge, charge);
    return this.sendWithFailover(call, candidates);
  }

  /**
   * A read raced across `candidates`: the first is asked at once; whenever the hedge delay passes without an
   * answer (and fewer than `max` hedges were sent) the next is asked as well, once `charge` accepts it. The
   * first answer wins. A transport fault, or an answer saying the node is behind, does not end the race: the
   * next candidate is asked at once, as sendWithFailover would; when none is left the last "behind" answer
   * or the fault is the outcome. Calls still in flight are left to finish. The time to the answer (not each
   * upstream call's) is what the next delays are drawn from: a slow moment's answers, all arriving late at
   * once, would otherwise fill the window and put the delay past the slowness it is meant to cut.
   */
  private sendHedged(call: UpstreamCall, candidates: Upstream[], settings: HedgeSettings, charge: HedgeCharge | undefined): Promise<RpcOutcome> {
    const latencies = this.latenciesOf(call.method);
    const delay = hedgeDelayMs(latencies.quantile(), settings);
    const started = performance.now();
    const network = this.options.network;
    const label = methodLabel(call.method);
    return new Promise<RpcOutcome>((resolve, reject) => {
      let next = 0;
      let inFlight = 0;
      let hedges = 0;
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      let failure: UpstreamError | undefined;
      let behind: RpcOutcome | undefined;
      let busy: RpcOutcome | undefined;

      const finish = (winnerWasHedge: boolean) => {
        done = true;
        clearTimeout(timer);
        latencies.record(performance.now() - started);
        if (hedges === 0) return;
        const won = winnerWasHedge ? 1 : 0;
        if (won) metrics.upstreamHedges.labels(network, label, 'won').inc();
        if (hedges > won) metrics.upstreamHedges.labels(network, label, 'lost').inc(hedges - won);
      };
      const ask = (hedge: boolean) => {
        const member = candidates[next++];
        inFlight++;
        this.attempt(member, call).then(
          (outcome) => settle(hedge, outcome, undefined),
          (err: unknown) => settle(hedge, undefined, err),
        );
      };
      const arm = () => {
        if (hedges < settings.max && next < candidates.length) timer = setTimeout(fire, delay);
      };
      const launch = () => {
        if (done || next >= candidates.length) return;
        hedges++;
        ask(true);
        arm();
      };
      const fire = () => {
        timer = undefined;
        if (done) return;
        const charged = charge?.(1);
        if (!charged) return launch();
        charged.then(launch, () => {
          if (!done) metrics.upstreamHedges.labels(network, label, 'limited').inc();
        });
      };
      const settle = (hedge: boolean, outcome: RpcOutcome | undefined, err: unknown) => {
        inFlight--;
        if (done) return;
        const more = next < candidates.length;
        if (outcome === undefined) {
          if (!(err instanceof UpstreamError)) {
            finish(false);
            return reject(err);
          }
          failure = err;
          if (more) {
            metrics.upstreamRetries.labels(network, 'transport').inc();
            return ask(false);
          }
        } else if ((more || inFlight > 0) && outcome.error !== undefined && isBusyAnswer(outcome.error)) {
          // Refused for now by the provider's limit (attempt() started its backoff): the next one may serve.
          busy = outcome;
          if (more) {
            metrics.upstreamRetries.labels(network, 'busy').inc();
            return ask(false);
          }
        } else if (
          this.options.health.retryBehindErrors &&
          (more || inFlight > 0) &&
          (outcome.error !== undefined
            ? isBehindAnswer(call.method, outcome.error)
            : outcome.result === null && nullMeansBehind(call.method, call.params, this.networkHead))
        ) {
          behind = outcome;
          if (more) {
            metrics.upstreamRetries.labels(network, 'behind').inc();
            return ask(false);
          }
        } else {
          finish(hedge);
          return resolve(outcome);
        }
        if (inFlight > 0) return;
        finish(false);
        if (behind) resolve(behind);
        else if (busy) resolve(busy);
        else reject(failure!);
      };

      ask(false);
      arm();
    });
  }

  /** The recent answer times of a method, for the hedge delay. */
  private latenciesOf(method: string): RecentLatencies {
    const label = methodLabel(method);
    let found = this.latencies.get(label);
    if (!found) {
      found = new RecentLatencies(this.hedge!.quantile);
      this.latencies.set(label, found);
    }
    return found;
  }

  private async sendWithFailover(call: UpstreamCall, candidates: Upstream[]): Promise<RpcOutcome> {
    let failure: UpstreamError | undefined;
    let behind: RpcOutcome | undefined;
    let busy: RpcOutcome | undefined;
    for (let i = 0; i < candidates.length; i++) {
      const more = i + 1 < candidates.length;
      let outcome: RpcOutcome;
      try {
        outcome = await this.attempt(candidates[i], call);
      } catch (err) {
        if (!(err instanceof UpstreamError)) throw err;
        failure = err;
        if (!mayRetry(call.method, err)) break;
        if (more) metrics.upstreamRetries.labels(this.options.network, 'transport').inc();
        continue;
      }
      if (more && outcome.error !== undefined && isBusyAnswer(outcome.error)) {
        // Refused for now by the provider's limit (attempt() started its backoff): the next one may serve.
        busy = outcome;
        metrics.upstreamRetries.labels(this.options.network, 'busy').inc();
        continue;
      }
      if (
        more &&
        this.options.health.retryBehindErrors &&
        (outcome.error !== undefined
          ? isBehindAnswer(call.method, outcome.error)
          : outcome.result === null && nullMeansBehind(call.method, call.params, this.networkHead))
      ) {
        // "behind" in words, or null for a block the network has: another upstream may have it.
        behind = outcome;
        metrics.upstreamRetries.labels(this.options.network, 'behind').inc();
        continue;
      }
      if (outcome.error === undefined && FILTER_CREATE_METHODS.has(call.method) && typeof outcome.result === 'string') {
        this.filterHomes.set(outcome.result, candidates[i]);
      }
      return outcome;
    }
    // Every upstream said it is behind: that answer is the truth for now.
    if (behind) return behind;
    if (busy) return busy;
    throw failure!;
  }

  /** One upstream batch; answers in the order of `calls`. Filter calls must not be batched (see relay.ts). */
  async sendBatch(calls: UpstreamCall[]): Promise<RpcOutcome[]> {
    const candidates = this.busyLast(this.rotation());
    let failure: UpstreamError | undefined;
    for (let i = 0; i < candidates.length; i++) {
      try {
        return await this.attemptBatch(candidates[i], calls);
      } catch (err) {
        if (!(err instanceof UpstreamError)) throw err;
        failure = err;
        if (!calls.every((call) => mayRetry(call.method, err))) break;
        if (i + 1 < candidates.length) metrics.upstreamRetries.labels(this.options.network, 'transport').inc();
      }
    }
    throw failure!;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.probing;
    await Promise.all(this.members.map((m) => m.transport.close()));
  }

  // --- routing

  private candidatesFor(call: UpstreamCall): Upstream[] {
    if (this.members.length === 1) return this.members;
    if (FILTER_USE_METHODS.has(call.method)) {
      // Only the node that made the filter knows it: no failover (another node would say "filter not found").
      const id = call.params[0];
      return [(typeof id === 'string' && this.filterHomes.get(id)) || this.filterHome()];
    }
    if (FILTER_CREATE_METHODS.has(call.method)) {
      const home = this.filterHome();
      return [home, ...this.rotation().filter((m) => m !== home)];
    }
    const order = this.busyLast(this.rotation());
    const block = order.length > 1 ? requestedBlock(call.method, call.params) : undefined;
    return block === undefined ? order : this.reachingFirst(order, block);
  }

  /** `order` with the upstreams in a busy backoff moved to the end (in the same order). */
  private busyLast(order: Upstream[]): Upstream[] {
    if (this.busyHorizon === 0) return order;
    const now = performance.now();
    if (now >= this.busyHorizon) {
      this.busyHorizon = 0;
      return order;
    }
    const free = order.filter((m) => m.busyUntil <= now);
    return free.length === order.length ? order : [...free, ...order.filter((m) => m.busyUntil > now)];
  }

  /** The upstream said it is busy: it is tried last for a while (longer each time in a row). */
  private onBusy(member: Upstream, retryAfterMs: number | undefined): void {
    const first = member.busyBackoffMs === 0;
    member.busyBackoffMs = busyBackoff(member.busyBackoffMs, this.options.busyBackoffMs ?? 2_000, retryAfterMs);
    member.busyUntil = performance.now() + member.busyBackoffMs;
    this.busyHorizon = Math.max(this.busyHorizon, member.busyUntil);
    if (first) this.log.warn({ upstream: member.name, backoffMs: member.busyBackoffMs }, 'upstream busy (rate limited); tried last for a while');
  }

  /** An upstream's head: as the head tracker knows it now, else from the last health check. */
  private headOf(m: Upstream): number | undefined {
    return this.heads?.upstreamHead(m.name) ?? m.head;
  }

  /** The network's head: the head tracker's, else the best head of the last health check. */
  private get networkHead(): number | undefined {
    return this.heads?.height ?? this.bestHead;
  }

  /**
   * `order` with the upstreams known to be below `block` moved to the end (they would answer null), the
   * highest of them first (the others' heads may just not be known yet).
   */
  private reachingFirst(order: Upstream[], block: number): Upstream[] {
    const below = (m: Upstream) => {
      const head = this.headOf(m);
      return head !== undefined && head < block;
    };
    if (!order.some(below)) return order;
    const behind = order.filter(below).sort((a, b) => this.headOf(b)! - this.headOf(a)!);
    return [...order.filter((m) => !below(m)), ...behind];
  }

  /** Candidates in the order to try them: a weighted pick among healthy primaries first. */
  private rotation(): Upstream[] {
    const primaries = this.healthyPrimaries;
    if (primaries.length === 0) return this.healthyFallbacks.length > 0 ? this.healthyFallbacks : this.members;
    if (primaries.length === 1 && this.healthyFallbacks.length === 0) return primaries;
    const first = primaries.length === 1 ? 0 : weightedPick(this.weights, this.scores);
    const order = [primaries[first]];
    for (let i = 0; i < primaries.length; i++) if (i !== first) order.push(primaries[i]);
    for (const fallback of this.healthyFallbacks) order.push(fallback);
    return order;
  }

  /**
   * Where new filters go: the first healthy primary in configuration order, so that every gateway instance
   * makes them on the same node while it is healthy.
   */
  private filterHome(): Upstream {
    return this.healthyPrimaries[0] ?? this.healthyFallbacks[0] ?? this.members[0];
  }

  private rebuildRotation(): void {
    this.healthyPrimaries = this.members.filter((m) => m.inRotation && m.role === 'primary');
    this.healthyFallbacks = this.members.filter((m) => m.inRotation && m.role === 'fallback');
    this.weights = this.healthyPrimaries.map((m) => m.weight);
    this.scores = this.healthyPrimaries.map(() => 0);
  }

  // --- calls and their bookkeeping

  private async attempt(member: Upstream, call: UpstreamCall): Promise<RpcOutcome> {
    const counts = member.metricsFor(call.method);
    const started = performance.now();
    try {
      const outcome = await member.transport.send(call);
      const elapsed = performance.now() - started;
      counts.latency.observe(elapsed / 1000);
      member.latency.record(elapsed);
      if (outcome.error === undefined) counts.result.pending++;
      else {
        counts.error.pending++;
        if (isBusyAnswer(outcome.error)) {
          this.onBusy(member, undefined);
          return outcome;
        }
      }
      member.errors.record(false, started);
      member.busyBackoffMs = 0;
      return outcome;
    } catch (err) {
      counts.latency.observe((performance.now() - started) / 1000);
      counts.failed.pending++;
      this.onFailure(member, err, started);
      throw err;
    }
  }

  private async attemptBatch(member: Upstream, calls: UpstreamCall[]): Promise<RpcOutcome[]> {
    const started = performance.now();
    try {
      const outcomes = await member.transport.sendBatch(calls);
      const elapsed = performance.now() - started;
      member.metricsFor('batch').latency.observe(elapsed / 1000);
      member.latency.record(elapsed);
      calls.forEach((call, i) => {
        const counts = member.metricsFor(call.method);
        (outcomes[i].error === undefined ? counts.result : counts.error).pending++;
      });
      member.errors.record(false, started);
      return outcomes;
    } catch (err) {
      member.metricsFor('batch').latency.observe((performance.now() - started) / 1000);
      for (const call of calls) member.metricsFor(call.method).failed.pending++;
      this.onFailure(member, err, started);
      throw err;
    }
  }

  private onFailure(member: Upstream, err: unknown, now: number): void {
    if (!(err instanceof UpstreamError)) return;
    if (err.reason === 'busy') return this.onBusy(member, err.retryAfterMs);
    if (!countsAgainstHealth(err)) return;
    member.errors.record(true, now);
    if (err.reason === 'unreachable') {
      this.takeOut(member, err.message);
      return;
    }
    const counts = member.errors.counts(now);
    if (tooManyErrors(counts, this.options.health)) {
      this.takeOut(member, `${counts.failures} of its last ${counts.total} calls failed (latest: ${err.message})`);
    }
  }

  // --- health checks

  /**
   * One round of health checks; a round still running when the next is due is not doubled. `fresh`: every
   * head is asked for now (a scheduled round takes what the head tracker heard lately).
   */
  checkHealth(fresh = true): Promise<void> {
    this.probing ??= this.probeAll(fresh).finally(() => (this.probing = undefined));
    return this.probing;
  }

  private async probeAll(fresh: boolean): Promise<void> {
    await this.heads?.refresh(fresh);
    const heads = await Promise.all(this.members.map((m) => this.probe(m)));
    let best: number | undefined;
    for (const head of heads) if (head !== undefined && (best === undefined || head > best)) best = head;
    this.members.forEach((member, i) => {
      const head = heads[i];
      if (head === undefined || best === undefined) return;
      const lag = excessLag(head, best, this.options.health);
      if (lag !== undefined) this.takeOut(member, `lags ${lag} blocks behind the best head ${best}`);
      else this.putBack(member);
    });
    const moved = best !== this.bestHead;
    this.bestHead = best;
    // The finalized block only moves when the head does: an idle chain costs no call for it.
    if (!moved && this.finalized !== undefined) return;
    const leader = this.members.find((m, i) => heads[i] === best && m.inRotation);
    this.finalized = leader ? await this.finalizedOf(leader) : undefined;
  }

  /** The upstream's head block, or undefined when it failed the check (and was taken out). */
  private async probe(member: Upstream): Promise<number | undefined> {
    try {
      if (!member.chainChecked) {
        const chain = await member.transport.send({ method: 'eth_chainId', params: [] });
        if (chain.error && isBusyAnswer(chain.error)) return this.stillBusy(member);
        const chainId = typeof chain.result === 'string' ? Number(chain.result) : NaN;
        if (chainId !== this.options.chainId) {
          this.takeOut(member, chain.error ? `answers eth_chainId with an error` : `serves chain ${chainId}, not ${this.options.chainId}`);
          return undefined;
        }
        member.chainChecked = true;
      }
      const known = this.heads?.upstreamHead(member.name);
      if (known !== undefined) {
        member.head = known;
        metrics.upstreamHead.labels(this.options.network, member.name).set(known);
        return known;
      }
      const started = performance.now();
      const outcome = await member.transport.send({ method: 'eth_blockNumber', params: [] });
      member.latency.record(performance.now() - started);
      if (outcome.error && isBusyAnswer(outcome.error)) return this.stillBusy(member);
      const head = typeof outcome.result === 'string' ? Number(outcome.result) : NaN;
      if (!Number.isSafeInteger(head)) {
        this.takeOut(member, 'answers eth_blockNumber without a block number');
        return undefined;
      }
      member.head = head;
      metrics.upstreamHead.labels(this.options.network, member.name).set(head);
      return head;
    } catch (err) {
      if (err instanceof UpstreamError && err.reason === 'busy') return this.stillBusy(member, err.retryAfterMs);
      member.chainChecked = false;
      this.takeOut(member, `failed its health check: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** A health check the upstream refused as busy: it stays as it was (its last head), in a busy backoff. */
  private stillBusy(member: Upstream, retryAfterMs?: number): number | undefined {
    this.onBusy(member, retryAfterMs);
    return member.head;
  }

  private async finalizedOf(member: Upstream): Promise<number | undefined> {
    try {
      const outcome = await member.transport.send({ method: 'eth_getBlockByNumber', params: ['finalized', false] });
      const number = (outcome.result as { number?: unknown } | null)?.number;
      return typeof number === 'string' ? Number(number) : undefined;
    } catch {
      return undefined;
    }
  }

  private takeOut(member: Upstream, reason: string): void {
    member.reason = reason;
    if (!member.inRotation) return;
    member.inRotation = false;
    this.rebuildRotation();
    metrics.upstreamHealthy.labels(this.options.network, member.name, member.role).set(0);
    metrics.upstreamStateChanges.labels(this.options.network, member.name, 'out').inc();
    this.log.warn({ upstream: member.name, reason }, 'upstream taken out of rotation');
  }

  private putBack(member: Upstream): void {
    if (member.inRotation) return;
    member.inRotation = true;
    member.reason = undefined;
    member.errors.reset();
    this.rebuildRotation();
    metrics.upstreamHealthy.labels(this.options.network, member.name, member.role).set(1);
    metrics.upstreamStateChanges.labels(this.options.network, member.name, 'in').inc();
    this.log.info({ upstream: member.name }, 'upstream back in rotation');
  }
}
