/**
 * An upstream reached over WebSocket: calls and batches multiplexed by id on one connection, plus
 * eth_subscribe notifications routed by subscription id. The connection opens on first use; when it drops
 * while subscriptions are live it is re-opened with backoff and 'reconnected' is emitted so that the
 * subscription hub can subscribe again.
 *
 * A message larger than `maxAnswerBytes` is not read: the WebSocket protocol then closes the connection
 * (1009), and since the gateway cannot tell whose answer it was, every call waiting on that connection
 * fails 'too-large' (502 naming MAX_UPSTREAM_ANSWER_BYTES); the next call opens a new connection.
 */
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { UpstreamError } from '../errors.js';
import type { RpcOutcome } from '../jsonrpc.js';
import type { UpstreamCall, UpstreamTransport } from './types.js';
import { toOutcome, batchOutcomes } from './outcome.js';
import { InFlight } from '../../shared/in-flight.js';
import type { Logger } from '../../shared/logger.js';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: UpstreamError) => void;
  timer: NodeJS.Timeout;
}

export interface WsUpstreamOptions {
  name: string;
  url: string;
  timeoutMs: number;
  logger: Logger;
  /** Largest message read (MAX_UPSTREAM_ANSWER_BYTES); default ws's own (100 MiB). */
  maxAnswerBytes?: number;
}

export class WsUpstream extends EventEmitter implements UpstreamTransport {
  readonly name: string;
  private socket: WebSocket | undefined;
  private opening: Promise<WebSocket> | undefined;
  private nextId = 1;
  /** Calls awaiting their answer, by request id (not a Map, see in-flight.ts). */
  private readonly pending = new InFlight<Pending>();
  private readonly subscribers = new Map<string, (result: unknown) => void>();
  private closed = false;
  private reconnectDelayMs = 250;
  /** The open connection is closing because a message exceeded maxAnswerBytes. */
  private overflowed = false;

  constructor(private readonly options: WsUpstreamOptions) {
    super();
    this.name = options.name;
  }

  async send(call: UpstreamCall): Promise<RpcOutcome> {
    const id = this.nextId++;
    const message = await this.request(id, { jsonrpc: '2.0', id, method: call.method, params: call.params });
    return toOutcome(message, this.name);
  }

  async sendBatch(calls: UpstreamCall[]): Promise<RpcOutcome[]> {
    // Ids of a batch are consecutive; the answer (an array) is matched by its first id.
    const base = this.nextId;
    this.nextId += calls.length;
    const body = calls.map((c, i) => ({ jsonrpc: '2.0', id: base + i, method: c.method, params: c.params }));
    const answer = await this.request(base, body);
    // The answer was parsed for this exchange alone: its items' ids are put back in the batch's numbering
    // in place (a copy, `{ ...item, id }`, takes a slow path of Node 20's V8 for each item).
    if (Array.isArray(answer)) {
      for (const item of answer as { id?: unknown }[]) {
        if (item !== null && typeof item === 'object' && typeof item.id === 'number') item.id -= base;
      }
    }
    return batchOutcomes(answer, calls.length, this.name);
  }

  /** eth_subscribe on the upstream; `listener` gets each notification's result until `unsubscribe`. */
  async subscribe(params: unknown[], listener: (result: unknown) => void): Promise<RpcOutcome> {
    const outcome = await this.send({ method: 'eth_subscribe', params });
    if (outcome.error === undefined) {
      if (typeof outcome.result !== 'string') {
        throw new UpstreamError('bad-response', this.name, 'answered eth_subscribe without a subscription id');
      }
      this.subscribers.set(outcome.result, listener);
    }
    return outcome;
  }

  async unsubscribe(subscriptionId: string): Promise<void> {
    if (!this.subscribers.delete(subscriptionId)) return;
    if (this.socket?.readyState !== WebSocket.OPEN) return;
    await this.send({ method: 'eth_unsubscribe', params: [subscriptionId] }).catch((err: Error) =>
      this.options.logger.debug({ upstream: this.name, err: err.message }, 'eth_unsubscribe failed'),
    );
  }

  get subscriptionCount(): number {
    return this.subscribers.size;
  }

  private async request(id: number, payload: unknown): Promise<unknown> {
    const socket = await this.connect();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new UpstreamError('timeout', this.name, 'timed out'));
      }, this.options.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      socket.send(JSON.stringify(payload));
    });
  }

  private connect(): Promise<WebSocket> {
    if (this.closed) return Promise.reject(new UpstreamError('closed', this.name, 'is closed'));
    if (this.socket?.readyState === WebSocket.OPEN) return Promise.resolve(this.socket);
    this.opening ??= new Promise<WebSocket>((resolve, reject) => {
      const socket = new WebSocket(this.options.url, {
        handshakeTimeout: this.options.timeoutMs,
        ...(this.options.maxAnswerBytes === undefined ? {} : { maxPayload: this.options.maxAnswerBytes }),
      });
      socket.once('open', () => {
        this.socket = socket;
        this.opening = undefined;
        this.reconnectDelayMs = 250;
        resolve(socket);
      });
      socket.on('error', (err) => {
        if (this.socket === socket) {
          // Errors after open surface as 'close', except a message too large: the connection is closing
          // (its close handshake may take a while, and a call meanwhile would open another), so the calls
          // waiting on it fail now, saying why.
          if ((err as { code?: string }).code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
            this.overflowed = true;
            this.onClose(socket);
          }
          return;
        }
        this.opening = undefined;
        reject(new UpstreamError('unreachable', this.name, `is unreachable (${(err as { code?: string }).code ?? err.message})`));
      });
      socket.on('message', (data) => this.onMessage(data.toString()));
      socket.on('close', () => this.onClose(socket));
    });
    return this.opening;
  }

  private onMessage(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.options.logger.warn({ upstream: this.name }, 'upstream sent a WebSocket frame that is not JSON');
      return;
    }
    const id = Array.isArray(message) ? lowestId(message) : (message as { id?: unknown } | null)?.id;
    if (typeof id === 'number') {
      const pending = this.pending.get(id);
      if (!pending) return;
      this.pending.delete(id);
      clearTimeout(pending.timer);
      pending.resolve(message);
      return;
    }
    const note = message as { method?: string; params?: { subscription?: string; result?: unknown } };
    if (note.method === 'eth_subscription' && typeof note.params?.subscription === 'string') {
      this.subscribers.get(note.params.subscription)?.(note.params.result);
    }
  }

  private onClose(socket: WebSocket): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    const lost = this.pending.values();
    this.pending.clear();
    const overflowed = this.overflowed;
    this.overflowed = false;
    for (const pending of lost) {
      clearTimeout(pending.timer);
      pending.reject(
        overflowed
          ? new UpstreamError(
              'too-large',
              this.name,
              `answered more than ${this.options.maxAnswerBytes} bytes (MAX_UPSTREAM_ANSWER_BYTES); ask for less, e.g. eth_getLogs over fewer blocks (the WebSocket connection was closed, failing every call waiting on it)`,
            )
          : new UpstreamError('connection-lost', this.name, 'closed the connection'),
      );
    }
    const hadSubscriptions = this.subscribers.size > 0;
    if (hadSubscriptions) this.emit('connection-lost');
    // Upstream subscription ids die with the connection; the hub subscribes again on 'reconnected'.
    this.subscribers.clear();
    if (hadSubscriptions && !this.closed) this.reconnect();
  }

  private reconnect(): void {
    const delay = this.reconnectDelayMs;
    this.reconnectDelayMs = Math.min(delay * 2, 5_000);
    setTimeout(() => {
      if (this.closed) return;
      this.connect().then(
        () => this.emit('reconnected'),
        () => this.reconnect(),
      );
    }, delay).unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscribers.clear();
    const socket = this.socket;
    this.socket = undefined;
    if (socket) {
      socket.removeAllListeners('close');
      socket.terminate();
    }
    for (const pending of this.pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(new UpstreamError('closed', this.name, 'is closed'));
    }
    this.pending.clear();
  }
}

function lowestId(messages: unknown[]): number | undefined {
  const ids = messages.map((m) => (m as { id?: unknown } | null)?.id).filter((id) => typeof id === 'number');
  return ids.length > 0 ? Math.min(...(ids as number[])) : undefined;
}
