/**
 * eth_subscribe for WebSocket clients of one network; each client sees its own subscription id and the
 * usual `eth_subscription` envelope.
 *
 * - `newHeads` and `logs` are served by the gateway from the network's head tracker (head/tracker.ts),
 *   whatever the upstreams' transport: every block once, in order, gaps filled, the new chain's blocks
 *   after a reorganisation. `logs` reads each new block's logs once (eth_getLogs by block hash, with
 *   failover) for all logs clients, remembers per block what it delivered to whom, and after a
 *   reorganisation sends those logs again with `removed: true` (newest block first) before the new
 *   chain's logs, as geth does (anvil does not: see docs/gateway-head.md).
 * - Other kinds (newPendingTransactions, ...) are relayed from a WebSocket upstream. Clients asking for
 *   the same thing share one upstream subscription, ended when its last client leaves; when that upstream's
 *   connection drops the subscription moves to another WebSocket upstream (or back once it reconnects).
 *
 * Whatever the kind, a notification's result is serialized once, however many subscriptions receive it
 * (every `newHeads` client, every `logs` client whose filter a log passes): only the subscription id
 * differs from one to the next (see SubscriberSink).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WsUpstream } from './upstream/ws.js';
import type { RpcOutcome } from './jsonrpc.js';
import type { UpstreamCall } from './upstream/types.js';
import { rpcErrors } from './errors.js';
import type { Logger } from '../shared/logger.js';
import type { HeadTracker } from './head/tracker.js';
import type { HeadChange, TrackedBlock } from './head/chain.js';
import { matchesLog, parseLogsFilter, type LogsFilter, type RawLog } from './head/logs-filter.js';

/**
 * A client connection as the hub sees it: somewhere to write notifications. A notification is made once
 * for all the subscriptions it goes to (notificationBody): the sink writes the few bytes that name the
 * subscription, then the shared body (websocket.ts sends them as two fragments of one message).
 */
export interface SubscriberSink {
  notify(subscription: string, body: Buffer): void;
  /** False once the client has gone (its dropClient may already have run). */
  readonly open: boolean;
}

interface Relayed {
  params: unknown[];
  upstream: WsUpstream | undefined;
  upstreamId: string | undefined;
  /** Settles once the upstream subscription exists (or failed). */
  ready: Promise<RpcOutcome>;
  clients: Map<string, SubscriberSink>;
}

interface LogsClient {
  sink: SubscriberSink;
  filter: LogsFilter;
  /** Hashes of the blocks whose logs it was sent (for `removed: true` after a reorganisation). */
  delivered: Set<string>;
}

type ClientSub = { kind: 'newHeads' } | { kind: 'logs' } | { kind: 'relayed'; key: string };

/** How many blocks' logs are remembered for removal notices (deeper reorganisations send none). */
const REMEMBERED_BLOCKS = 256;

export interface HubOptions {
  tracker: HeadTracker;
  /** The network's WebSocket upstreams, for relayed kinds. */
  wsUpstreams: WsUpstream[];
  /** A call to any upstream with failover (the pool). */
  send(call: UpstreamCall): Promise<RpcOutcome>;
  network: string;
  logger: Logger;
}

export class SubscriptionHub {
  private readonly relayed = new Map<string, Relayed>();
  private readonly clientSubs = new Map<string, { sub: ClientSub; sink: SubscriberSink }>();
  /** The ids each client holds: counting or dropping one client's costs its own, not everyone's. */
  private readonly bySink = new Map<SubscriberSink, Set<string>>();
  /** Relayed subscriptions asked for by each client and not registered yet. */
  private readonly opening = new Map<SubscriberSink, number>();
  private readonly headClients = new Map<string, SubscriberSink>();
  private readonly logsClients = new Map<string, LogsClient>();
  /** Logs of recent blocks as delivered, by block hash (insertion order = age). */
  private readonly blockLogs = new Map<string, RawLog[]>();
  private logWork: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly stopListening: () => void;

  constructor(private readonly options: HubOptions) {
    this.stopListening = options.tracker.onChange((change) => this.onChange(change));
    for (const upstream of options.wsUpstreams) {
      upstream.on('connection-lost', () => this.moveFrom(upstream));
      upstream.on('reconnected', () => this.reopenOn(upstream));
    }
  }

  /** Number of live upstream subscriptions made for clients (relayed kinds only). */
  get upstreamSubscriptions(): number {
    return [...this.relayed.values()].filter((s) => s.upstreamId !== undefined).length;
  }

  /** Number of client subscriptions of every kind. */
  get clientSubscriptions(): number {
    return this.clientSubs.size;
  }

  /**
   * Subscriptions `sink` holds or is being given (relayed ones waiting for their upstream): what a
   * per-connection cap counts, so that the items of one batch, checked before any is answered, count too.
   */
  subscriptionsOf(sink: SubscriberSink): number {
    let n = this.opening.get(sink) ?? 0;
    n += this.bySink.get(sink)?.size ?? 0;
    return n;
  }

  async subscribe(sink: SubscriberSink, params: unknown[]): Promise<RpcOutcome> {
    const kind = params[0];
    if (kind === 'newHeads') {
      // Further params (some clients send options such as includeTransactions) are ignored, as nodes do.
      const id = this.add(sink, { kind: 'newHeads' });
      this.headClients.set(id, sink);
      return { result: id };
    }
    if (kind === 'logs') {
      if (params.length > 2) throw rpcErrors.subscriptionParams('logs takes one filter object');
      const filter = parseLogsFilter(params[1]);
      const id = this.add(sink, { kind: 'logs' });
      this.logsClients.set(id, { sink, filter, delivered: new Set() });
      return { result: id };
    }
    return this.subscribeRelayed(sink, params);
  }

  /** eth_unsubscribe: true when `sink` owned that subscription. */
  unsubscribe(sink: SubscriberSink, clientId: string): boolean {
    const sub = this.clientSubs.get(clientId);
    if (!sub || sub.sink !== sink) return false;
    this.remove(clientId);
    return true;
  }

  /** A client went away: its subscriptions end, and so do upstream ones nobody else uses. */
  dropClient(sink: SubscriberSink): void {
    for (const clientId of [...(this.bySink.get(sink) ?? [])]) this.remove(clientId);
  }

  close(): void {
    this.closed = true;
    this.stopListening();
  }

  private add(sink: SubscriberSink, sub: ClientSub): string {
    const id = '0x' + randomBytes(16).toString('hex');
    this.clientSubs.set(id, { sub, sink });
    let ids = this.bySink.get(sink);
    if (!ids) this.bySink.set(sink, (ids = new Set()));
    ids.add(id);
    return id;
  }

  private remove(clientId: string): void {
    const entry = this.clientSubs.get(clientId);
    if (!entry) return;
    this.clientSubs.delete(clientId);
    const ids = this.bySink.get(entry.sink);
    ids?.delete(clientId);
    if (ids?.size === 0) this.bySink.delete(entry.sink);
    const { sub } = entry;
    if (sub.kind === 'newHeads') this.headClients.delete(clientId);
    else if (sub.kind === 'logs') this.logsClients.delete(clientId);
    else this.leaveRelayed(clientId, sub.key);
  }

  // --- newHeads and logs, from the head tracker

  private onChange(change: HeadChange): void {
    if (this.closed) return;
    for (const block of change.added) {
      if (this.headClients.size === 0) break;
      const body = notificationBody(JSON.stringify(block.header));
      for (const [id, sink] of this.headClients) sink.notify(id, body);
    }
    // Logs need a fetch per block: queued, so that blocks (and removals) stay in order.
    this.logWork = this.logWork.then(() => this.deliverLogs(change));
  }

  private async deliverLogs({ removed, added }: HeadChange): Promise<void> {
    for (const block of removed) {
      const logs = this.blockLogs.get(block.hash);
      this.blockLogs.delete(block.hash);
      if (!logs) continue;
      const gone = logs.map((log) => ({ ...log, removed: true }));
      const bodies = new LazyBodies(gone);
      for (const [id, client] of this.logsClients) {
        if (!client.delivered.delete(block.hash)) continue;
        for (let i = 0; i < gone.length; i++) if (matchesLog(client.filter, gone[i])) client.sink.notify(id, bodies.get(i));
      }
    }
    for (const block of added) {
      if (this.logsClients.size === 0 || this.closed) continue;
      const logs = await this.logsOf(block);
      if (!logs) continue;
      this.remember(block.hash, logs);
      const bodies = new LazyBodies(logs);
      for (const [id, client] of this.logsClients) {
        client.delivered.add(block.hash);
        if (client.delivered.size > REMEMBERED_BLOCKS) client.delivered.delete(client.delivered.values().next().value!);
        for (let i = 0; i < logs.length; i++) if (matchesLog(client.filter, logs[i])) client.sink.notify(id, bodies.get(i));
      }
    }
  }

  /** The logs of a block (by hash, so that they are that block's), trying again while it is on the chain. */
  private async logsOf(block: TrackedBlock): Promise<RawLog[] | undefined> {
    for (let wait = 100; !this.closed && this.options.tracker.isCanonical(block.hash); wait = Math.min(wait * 2, 2_000)) {
      try {
        const outcome = await this.options.send({ method: 'eth_getLogs', params: [{ blockHash: block.hash }] });
        if (Array.isArray(outcome.result)) return outcome.result as RawLog[];
      } catch {
        // every upstream failed for now
      }
      await sleep(wait);
    }
    return undefined;
  }

  private remember(hash: string, logs: RawLog[]): void {
    this.blockLogs.set(hash, logs);
    if (this.blockLogs.size > REMEMBERED_BLOCKS) this.blockLogs.delete(this.blockLogs.keys().next().value!);
  }

  // --- relayed kinds, from a WebSocket upstream

  private async subscribeRelayed(sink: SubscriberSink, params: unknown[]): Promise<RpcOutcome> {
    if (this.options.wsUpstreams.length === 0) {
      throw rpcErrors.noSubscriptionUpstream(String(params[0]), this.options.network);
    }
    const key = JSON.stringify(params);
    let entry = this.relayed.get(key);
    if (!entry) {
      const created: Relayed = { params, upstream: undefined, upstreamId: undefined, clients: new Map(), ready: undefined! };
      created.ready = this.open(created, undefined);
      entry = created;
      this.relayed.set(key, entry);
      // A failed upstream subscription is not shared with later clients: they try afresh.
      const forget = () => {
        if (this.relayed.get(key) === created) this.relayed.delete(key);
      };
      created.ready.then((outcome) => outcome.error && forget(), forget);
    }
    this.opening.set(sink, (this.opening.get(sink) ?? 0) + 1);
    let outcome: RpcOutcome;
    try {
      outcome = await entry.ready;
    } finally {
      const left = this.opening.get(sink)! - 1;
      if (left === 0) this.opening.delete(sink);
      else this.opening.set(sink, left);
    }
    if (outcome.error) return outcome;
    const clientId = this.add(sink, { kind: 'relayed', key });
    entry.clients.set(clientId, sink);
    // The client may have left while the upstream was answering: then nobody will ever drop it.
    if (!sink.open) this.remove(clientId);
    return { result: clientId };
  }

  private leaveRelayed(clientId: string, key: string): void {
    const entry = this.relayed.get(key);
    if (!entry) return;
    entry.clients.delete(clientId);
    if (entry.clients.size > 0) return;
    this.relayed.delete(key);
    // If the upstream subscription is still being made, end it once it exists.
    entry.ready.then(
      () => {
        if (entry.upstreamId) void entry.upstream?.unsubscribe(entry.upstreamId);
      },
      () => undefined,
    );
  }

  /** Subscribes on the first WebSocket upstream that accepts, `avoid` last. */
  private async open(entry: Relayed, avoid: WsUpstream | undefined): Promise<RpcOutcome> {
    const order = [...this.options.wsUpstreams.filter((u) => u !== avoid), ...(avoid ? [avoid] : [])];
    let last: RpcOutcome = { error: { code: -32603, message: 'no WebSocket upstream' } };
    for (const upstream of order) {
      try {
        const outcome = await upstream.subscribe(entry.params, (result) => this.notify(entry, upstream, result));
        if (outcome.error === undefined) {
          entry.upstream = upstream;
          entry.upstreamId = outcome.result as string;
          return outcome;
        }
        // An error object (unknown kind, bad params) would be the same elsewhere.
        return outcome;
      } catch (err) {
        last = { error: { code: -32603, message: (err as Error).message } };
      }
    }
    return last;
  }

  private notify(entry: Relayed, from: WsUpstream, result: unknown): void {
    if (entry.upstream !== from) return;
    const body = notificationBody(JSON.stringify(result));
    for (const [clientId, sink] of entry.clients) sink.notify(clientId, body);
  }

  /** That upstream's connection dropped (its subscriptions with it): move what it carried. */
  private moveFrom(upstream: WsUpstream): void {
    for (const entry of this.relayed.values()) {
      if (entry.upstream !== upstream) continue;
      entry.upstream = undefined;
      entry.upstreamId = undefined;
      entry.ready = this.open(entry, upstream);
    }
  }

  /** That upstream is back: what found no home meanwhile subscribes there. */
  private reopenOn(upstream: WsUpstream): void {
    for (const entry of this.relayed.values()) {
      if (entry.upstream !== undefined) continue;
      entry.ready = this.open(entry, undefined).catch((err: Error) => {
        this.options.logger.warn({ network: this.options.network, upstream: upstream.name, err: err.message }, 'could not subscribe again');
        return { error: { code: -32603, message: err.message } };
      });
    }
  }
}

/**
 * An `eth_subscription` notification is `notificationHead(id)` followed by `notificationBody(result)`:
 * {"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"<id>","result":<result>}}, the
 * key order geth writes.
 */
export function notificationHead(subscription: string): string {
  return `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${subscription}","result":`;
}

/** The part of a notification every subscription receiving it shares: its result (JSON) and the end. */
export function notificationBody(resultJson: string): Buffer {
  return Buffer.from(resultJson + '}}');
}

/** The bodies of a block's logs, each made when a client's filter first passes it. */
class LazyBodies {
  private readonly bodies: (Buffer | undefined)[];

  constructor(private readonly logs: readonly RawLog[]) {
    this.bodies = new Array(logs.length);
  }

  get(i: number): Buffer {
    return (this.bodies[i] ??= notificationBody(JSON.stringify(this.logs[i])));
  }
}
