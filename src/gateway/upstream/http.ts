/**
 * An upstream reached over HTTP(S): a keep-alive undici pool, one POST per call or batch.
 *
 * Reads that arrive in the same turn of the event loop go out together as one JSON-RPC batch of at most
 * `batchCalls` (eRPC's upstream auto-batching, with no wait added: the turn's calls are sent right after it).
 * One exchange then carries many calls, which is most of what a relayed call costs both the gateway and the
 * node. The turn is gathered by shared/turn-batcher.ts, with its failure rule; a batch of one call goes as
 * that call alone. Only reads (failsafe/policy.ts) are batched, and of those not the ones that may be slow or
 * large (AUTONOMOUS: logs, traces, EVM execution), which would hold the others back: a batch can then always
 * be sent again call by call, since nothing in it changes anything. Each call settles on its own answer; a
 * call the answer left out goes again alone. An upstream that refuses a batch (a non-array answer or one
 * whose ids match no call, a body that is not JSON, an HTTP error other than 408 and 429) gets its calls
 * again one by one, and only single calls for the next minute, after which batches are tried again: one
 * refusal may have been one client's oversized call, which must not cost every client batching for good. When
 * a batch's connection drops, its calls go again alone, so that a call the node chokes on fails alone. A
 * timeout, a 408 or 429, or an unreachable upstream fails each call, for the pool to handle as it would
 * alone.
 *
 * An answer is read whole (to parse it) up to `maxAnswerBytes`: one that says it is larger (Content-Length)
 * or grows larger is aborted, and its call fails 'too-large' (502 naming MAX_UPSTREAM_ANSWER_BYTES). HTTP
 * 429 is 'busy', whatever the body, with the upstream's Retry-After: the pool tries another upstream.
 *
 * Each exchange (connect, request, whole answer) has one deadline, `timeoutMs` after it starts. Deadlines
 * are not timers: the exchanges in flight sit in a list, in the order they started and so of their
 * deadlines, which one interval per upstream sweeps from the oldest, aborting those past their deadline
 * (so a timeout fires within `timeoutMs` plus one sweep). A timer, or an AbortSignal, per request would
 * cost more than the rest of the relay. undici's own per-phase timeouts stay as a backstop.
 */
import { performance } from 'node:perf_hooks';
import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import { UpstreamError } from '../errors.js';
import type { RpcOutcome } from '../jsonrpc.js';
import type { UpstreamCall, UpstreamTransport } from './types.js';
import { toOutcome, batchOutcomes } from './outcome.js';
import { isRead } from '../failsafe/policy.js';
import { metrics, type CounterCell } from '../metrics.js';
import { TurnBatcher, type Outcome } from '../../shared/turn-batcher.js';

/** Socket errors raised before a request could be written: the upstream cannot have seen it. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

export interface HttpUpstreamOptions {
  name: string;
  /** The network it serves, for its metrics. */
  network: string;
  url: string;
  timeoutMs: number;
  connections?: number;
  /** Calls of one turn sent together as one batch, at most this many (default 1: each call alone). */
  batchCalls?: number;
  /** After a refused batch, how long calls go alone before batches are tried again (default 60 s). */
  batchRetryMs?: number;
  /** Largest answer read (MAX_UPSTREAM_ANSWER_BYTES); default unbounded. */
  maxAnswerBytes?: number;
}

/**
 * Methods whose calls go alone even when batching: their answers can be slow or large. Those that run EVM
 * code (eth_call and its kin) take as long as the code they are given, which any client chooses: batched,
 * one client's costly call would hold the other clients' reads of its turn back.
 */
const AUTONOMOUS = /^(eth_getLogs|eth_getFilterLogs|eth_call|eth_estimateGas|eth_createAccessList|eth_simulateV1|eth_fillTransaction|eth_callMany|debug_|trace_)/;

export class HttpUpstream implements UpstreamTransport {
  readonly name: string;
  private readonly pool: Pool;
  private readonly path: string;
  private readonly headers: Record<string, string>;
  private readonly deadlines: Deadlines;
  private readonly batchCalls: number;
  /** Until when (performance.now()) calls go alone after a refused batch; 0: batches are on. */
  private refusedUntil = 0;
  /** This turn's batched calls, sent when it ends, `batchCalls` to a batch. */
  private readonly turn: TurnBatcher<UpstreamCall, RpcOutcome>;
  private readonly counts: Record<'single' | 'batch' | 'clientBatch' | 'batchedCalls' | 'refusals', CounterCell>;

  constructor(private readonly options: HttpUpstreamOptions) {
    this.batchCalls = Math.max(1, options.batchCalls ?? 1);
    this.turn = new TurnBatcher((calls) => this.flush(calls), { maxItems: this.batchCalls });
    const url = new URL(options.url);
    this.name = options.name;
    this.path = (url.pathname || '/') + url.search;
    this.headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (url.username) {
      const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
      this.headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    this.pool = new Pool(url.origin, {
      connections: options.connections ?? 128,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connect: { timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    this.deadlines = new Deadlines(Math.min(50, Math.max(5, Math.floor(options.timeoutMs / 20))));
    const { network, name } = options;
    this.counts = {
      single: metrics.upstreamExchanges.cell(network, name, 'single'),
      batch: metrics.upstreamExchanges.cell(network, name, 'batch'),
      clientBatch: metrics.upstreamExchanges.cell(network, name, 'client_batch'),
      batchedCalls: metrics.upstreamBatchedCalls.cell(network, name),
      refusals: metrics.upstreamBatchRefusals.cell(network, name),
    };
  }

  /** Whether calls of one turn still go out together (false once the upstream refused a batch). */
  get batching(): boolean {
    return this.batchCalls > 1 && !this.refusing();
  }

  send(call: UpstreamCall): Promise<RpcOutcome> {
    if (this.batchCalls === 1 || !isRead(call.method) || AUTONOMOUS.test(call.method) || this.refusing()) return this.sendAlone(call);
    return this.turn.add(call);
  }

  sendBatch(calls: UpstreamCall[]): Promise<RpcOutcome[]> {
    this.counts.clientBatch.pending++;
    return this.post(batchBody(calls), (answer) => batchOutcomes(answer, calls.length, this.name));
  }

  private sendAlone(call: UpstreamCall): Promise<RpcOutcome> {
    const body = `{"jsonrpc":"2.0","id":0,"method":${JSON.stringify(call.method)},"params":${JSON.stringify(call.params)}}`;
    this.counts.single.pending++;
    return this.post(body, (answer) => toOutcome(answer, this.name));
  }

  /** Sends one batch of the turn's calls: a single call alone, more as one JSON-RPC batch. */
  private flush(calls: UpstreamCall[]): Outcome<RpcOutcome>[] | Promise<Outcome<RpcOutcome>[]> {
    if (calls.length === 1) return [this.sendAlone(calls[0])];
    this.counts.batch.pending++;
    this.counts.batchedCalls.pending += calls.length;
    return this.post(batchBody(calls), (answer) => answer).then(
      (answer) => this.settleTurn(calls, answer),
      (err: UpstreamError) => this.failTurn(calls, err),
    );
  }

  private refusing(): boolean {
    if (this.refusedUntil === 0) return false;
    if (performance.now() < this.refusedUntil) return true;
    this.refusedUntil = 0;
    return false;
  }

  /** The upstream refused a batch: its calls go again alone, and the next ones alone for a while. */
  private refused(calls: UpstreamCall[]): Promise<RpcOutcome>[] {
    this.counts.refusals.pending++;
    this.refusedUntil = performance.now() + (this.options.batchRetryMs ?? 60_000);
    return calls.map((call) => this.sendAlone(call));
  }

  /** Each call's answer (or why it is not one); a call the upstream left out is sent again alone. */
  private settleTurn(calls: UpstreamCall[], answer: unknown): Outcome<RpcOutcome>[] {
    const byId = new Map<number, unknown>();
    if (Array.isArray(answer)) {
      for (const item of answer) {
        const id = (item as { id?: unknown } | null)?.id;
        if (typeof id === 'number' && id >= 0 && id < calls.length) byId.set(id, item);
      }
    }
    if (byId.size === 0) {
      // One object for the whole batch (an error such as "batch not supported"), or answers that match no
      // call (ids rewritten on the way): this upstream's batches cannot be used.
      return this.refused(calls);
    }
    const outcomes: Outcome<RpcOutcome>[] = new Array(calls.length);
    for (let i = 0; i < calls.length; i++) {
      const item = byId.get(i);
      if (item === undefined) outcomes[i] = this.sendAlone(calls[i]);
      else {
        try {
          outcomes[i] = toOutcome(item, this.name);
        } catch (err) {
          outcomes[i] = err as UpstreamError;
        }
      }
    }
    return outcomes;
  }

  /** A batch that failed as a whole, see the file's opening comment: its calls go alone, or fail with it. */
  private failTurn(calls: UpstreamCall[], err: UpstreamError): Outcome<RpcOutcome>[] {
    const refusal = err.reason === 'bad-response' || (err.reason === 'http-status' && err.httpStatus !== 408 && err.httpStatus !== 429);
    if (refusal) return this.refused(calls);
    if (err.reason === 'connection-lost') return calls.map((call) => this.sendAlone(call));
    throw err;
  }

  /**
   * POSTs `body` and resolves what `decode` makes of the parsed JSON answer; rejects with an UpstreamError
   * (decode's too). Decoding inside the exchange saves the relay a promise per call.
   */
  private post<T>(body: string, decode: (answer: unknown) => T): Promise<T> {
    return new Promise((resolve, reject) => {
      const exchange = new Exchange(this, performance.now() + this.options.timeoutMs, (answer) => resolve(decode(answer)), reject);
      this.deadlines.add(exchange);
      this.pool.dispatch({ path: this.path, method: 'POST', headers: this.headers, body }, exchange);
    });
  }

  /** Largest answer read. */
  get maxAnswerBytes(): number {
    return this.options.maxAnswerBytes ?? Infinity;
  }

  tooLarge(): UpstreamError {
    return new UpstreamError(
      'too-large',
      this.name,
      `answered more than ${this.maxAnswerBytes} bytes (MAX_UPSTREAM_ANSWER_BYTES); ask for less, e.g. eth_getLogs over fewer blocks`,
    );
  }

  /** The parsed answer, or why it is not one (called by Exchange once the whole answer is in). */
  parseAnswer(statusCode: number, text: string, retryAfter: string | undefined): unknown {
    if (statusCode === 429) {
      throw new UpstreamError('busy', this.name, 'is busy (HTTP 429)', 429, retryAfterMs(retryAfter));
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw statusCode >= 400
        ? new UpstreamError('http-status', this.name, `answered HTTP ${statusCode}`, statusCode)
        : new UpstreamError('bad-response', this.name, 'answered with a body that is not JSON');
    }
    // A JSON-RPC body is the answer whatever the status (some clients send 4xx with an error object);
    // anything else with a failing status is the upstream's fault.
    if (statusCode >= 400 && (typeof parsed !== 'object' || parsed === null)) {
      throw new UpstreamError('http-status', this.name, `answered HTTP ${statusCode}`, statusCode);
    }
    return parsed;
  }

  transportError(err: unknown): UpstreamError {
    if (err instanceof undiciErrors.ConnectTimeoutError) {
      return new UpstreamError('unreachable', this.name, 'is unreachable (connect timed out)');
    }
    if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
      return new UpstreamError('timeout', this.name, 'timed out');
    }
    const code = (err as { code?: string }).code ?? (err as Error).message;
    return NEVER_CONNECTED.has(code)
      ? new UpstreamError('unreachable', this.name, `is unreachable (${code})`)
      : new UpstreamError('connection-lost', this.name, `dropped the connection (${code})`);
  }

  timedOut(): UpstreamError {
    return new UpstreamError('timeout', this.name, 'timed out');
  }

  exchangeDone(exchange: Exchange): void {
    this.deadlines.delete(exchange);
  }

  async close(): Promise<void> {
    this.turn.failWaiting(new UpstreamError('closed', this.name, 'was closed'));
    this.deadlines.stop();
    await this.pool.destroy();
  }
}

/** Retry-After in milliseconds: delay-seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function batchBody(calls: UpstreamCall[]): string {
  return JSON.stringify(calls.map((c, id) => ({ jsonrpc: '2.0', id, method: c.method, params: c.params })));
}

/** One request and its answer, as undici's dispatch handler: collects the body, settles once. */
class Exchange implements Dispatcher.DispatchHandler {
  /** Its neighbours in Deadlines' list while in flight. */
  older: Exchange | undefined = undefined;
  newer: Exchange | undefined = undefined;
  private controller: Dispatcher.DispatchController | undefined;
  private statusCode = 0;
  private retryAfter: string | undefined;
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private settled = false;

  constructor(
    private readonly upstream: HttpUpstream,
    readonly deadline: number,
    /** Takes the parsed answer; may throw the UpstreamError of an answer that is not one. */
    private readonly resolve: (value: unknown) => void,
    private readonly reject: (err: UpstreamError) => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Its deadline passed while it waited for a connection: it must not go out now.
    if (this.settled) controller.abort(new Error('deadline passed'));
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.statusCode = statusCode;
    if (statusCode === 429) {
      const retryAfter = headers['retry-after'];
      this.retryAfter = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
    }
    const length = Number(headers['content-length']);
    if (length > this.upstream.maxAnswerBytes) this.overflow(controller);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.bytes += chunk.length;
    if (this.bytes > this.upstream.maxAnswerBytes) return this.overflow(controller);
    this.chunks.push(chunk);
  }

  /** The answer is larger than allowed: the exchange ends here, and what was read is dropped. */
  private overflow(controller: Dispatcher.DispatchController): void {
    if (this.settled) return;
    this.settle();
    this.chunks.length = 0;
    controller.abort(new Error('answer too large'));
    this.reject(this.upstream.tooLarge());
  }

  onResponseEnd(): void {
    if (this.settled) return;
    const text = this.chunks.length === 1 ? this.chunks[0].toString('utf8') : Buffer.concat(this.chunks).toString('utf8');
    try {
      this.settle();
      this.resolve(this.upstream.parseAnswer(this.statusCode, text, this.retryAfter));
    } catch (err) {
      this.reject(err as UpstreamError);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.settled) return;
    this.settle();
    this.reject(this.upstream.transportError(err));
  }

  /** Called by the sweep once the deadline has passed. */
  expire(): void {
    if (this.settled) return;
    this.settle();
    this.controller?.abort(new Error('deadline passed'));
    this.reject(this.upstream.timedOut());
  }

  private settle(): void {
    this.settled = true;
    this.upstream.exchangeDone(this);
  }
}

/**
 * The exchanges in flight, oldest first: a list threaded through them, since they start in the order of their
 * deadlines (one timeout per upstream). Adding and removing one touches two neighbours and allocates
 * nothing, and nothing settled stays referenced (a Set or Map here kept answers alive, see in-flight.ts).
 * Swept every `tickMs` from the oldest while any are in flight.
 */
class Deadlines {
  private oldest: Exchange | undefined;
  private newest: Exchange | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly tickMs: number) {}

  add(exchange: Exchange): void {
    exchange.older = this.newest;
    if (this.newest) this.newest.newer = exchange;
    else this.oldest = exchange;
    this.newest = exchange;
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), this.tickMs);
      this.timer.unref();
    }
  }

  delete(exchange: Exchange): void {
    const { older, newer } = exchange;
    if (!older && !newer && this.oldest !== exchange) return; // not in the list
    if (older) older.newer = newer;
    else this.oldest = newer;
    if (newer) newer.older = older;
    else this.newest = older;
    exchange.older = exchange.newer = undefined;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private sweep(): void {
    const now = performance.now();
    while (this.oldest && this.oldest.deadline <= now) {
      const expired = this.oldest;
      this.delete(expired);
      expired.expire();
    }
    if (!this.oldest) this.stop();
  }
}
