/**
 * {ws_url}/ws (and /v1/jsonrpc/:network/ws): one JSON-RPC message per frame, every relayed method plus
 * eth_subscribe / eth_unsubscribe. A frame that is not JSON gets a -32700 error and the connection stays
 * open; when a client goes away its subscriptions end. A client that vanishes without closing (a dropped
 * network path sends no FIN) is found by pings: one that has not answered the previous ping is dropped.
 *
 * Bounds on what a client can make the process hold: connections per client as the access layer identified
 * it (Caller.limitId: its address through trusted proxies, an IPv6 one by its /64; WS_MAX_PER_CLIENT,
 * else the upgrade is refused 429) and in all (WS_MAX_CONNECTIONS, else 503), both with a JSON-RPC error
 * body and Retry-After; bytes left unread per connection (WS_MAX_BUFFERED_BYTES) and the time they may stay
 * unread (WS_STALL_MS), past either of which the connection is closed with 1008. A notification is written
 * as two fragments of one message: the few bytes naming the subscription, then the body shared by every
 * subscription it goes to (subscriptions.ts), which the socket queues without copying.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { WebSocketServer, WebSocket } from 'ws';
import type { Gateway } from '../gateway.js';
import { performance } from 'node:perf_hooks';
import { parseJson, errorResponse, serializeResponse, type CheckedRequest, type RpcOutcome } from '../jsonrpc.js';
import { asRpcError, rpcErrors } from '../errors.js';
import { notificationHead, type SubscriberSink } from '../subscriptions.js';
import { answerBody, type AnswerContext } from './answer.js';
import { httpAnswerContext, methodOf } from './network-http.js';
import type { Caller, RequestFacts } from '../access/access.js';
import { recordRequest } from '../requests.js';
import { endSocketWithJson } from '../../http/io.js';
import { ConnectionCap } from '../../access/connection-cap.js';

/** After a close for not reading, the socket is destroyed if the close handshake has not ended by then. */
const CLOSE_GRACE_MS = 5_000;

/** Retry-After of a refused upgrade: connections end when their clients go, which takes a moment at least. */
const RETRY_AFTER_SECONDS = 5;

export class WebSocketChannel {
  private readonly wss: WebSocketServer;
  /** Clients that answered (or sent anything) since the last ping round. */
  private readonly alive = new WeakSet<WebSocket>();
  private readonly heartbeat?: NodeJS.Timeout;
  private readonly stallSweep: NodeJS.Timeout;
  /**
   * Since when (performance.now()) each connection has had bytes waiting with its socket taking none, and
   * the socket's bytesWritten then; absent: nothing waited at the last sweep.
   */
  private readonly unreadSince = new WeakMap<WebSocket, { since: number; written: number }>();
  private readonly cap: ConnectionCap;

  constructor(private readonly gw: Gateway) {
    const settings = gw.config.gateway;
    this.cap = new ConnectionCap({ perClient: settings.wsMaxPerClient, total: settings.wsMaxConnections }, 'WebSocket connections', {
      perClient: 'WS_MAX_PER_CLIENT',
      total: 'WS_MAX_CONNECTIONS',
    });
    this.wss = new WebSocketServer({ noServer: true, maxPayload: gw.config.gateway.maxBodyBytes });
    // A handshake ws refuses (no key, wrong version, not GET) gets the gateway's JSON error, not ws's HTML.
    this.wss.on('wsClientError', (err: Error, socket: Duplex, req: IncomingMessage) => {
      const error = rpcErrors.handshakeRefused(req.method, err.message);
      endSocketWithJson(socket, error.status, JSON.stringify(errorResponse(null, error)), error.headers);
    });
    const interval = gw.config.gateway.wsPingIntervalMs;
    // One timer for all connections rather than one per connection.
    if (interval > 0) this.heartbeat = setInterval(() => this.pingRound(), interval).unref();
    this.stallSweep = setInterval(() => this.sweepStalled(), Math.max(50, Math.floor(settings.wsStallMs / 4))).unref();
  }

  /** Connections open now (for tests and the bench). */
  get connections(): number {
    return this.cap.count();
  }

  /**
   * Closes the connections that have read nothing for WS_STALL_MS while messages waited for them (the
   * socket took none of their bytes); a slow reader that keeps reading is not one of them.
   */
  private sweepStalled(): void {
    const now = performance.now();
    for (const ws of this.wss.clients) {
      if (ws.bufferedAmount === 0) {
        this.unreadSince.delete(ws);
        continue;
      }
      // What the socket handed to the system: bytesWritten counts its own buffer too.
      const socket = (ws as unknown as { _socket: Socket })._socket;
      const written = socket.bytesWritten - socket.writableLength;
      const seen = this.unreadSince.get(ws);
      if (seen === undefined || seen.written !== written) this.unreadSince.set(ws, { since: now, written });
      else if (now - seen.since >= this.gw.config.gateway.wsStallMs) {
        this.cutOff(ws, `client read nothing for ${this.gw.config.gateway.wsStallMs} ms`);
      }
    }
  }

  /** Closes a connection that does not read (1008, policy violation); destroys it if the close does not get through. */
  private cutOff(ws: WebSocket, reason: string): void {
    if (ws.readyState !== WebSocket.OPEN) return;
    ws.close(1008, reason);
    setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
  }

  private pingRound(): void {
    for (const ws of this.wss.clients) {
      if (!this.alive.has(ws)) {
        ws.terminate(); // 'close' follows, which drops the client's subscriptions
        continue;
      }
      this.alive.delete(ws);
      ws.ping();
    }
  }

  /**
   * Takes over an HTTP upgrade for `networkName` (already known to exist) by `caller` (whose API key was
   * accepted; its rate limits are charged per message).
   */
  upgrade(networkName: string, req: IncomingMessage, socket: Duplex, head: Buffer, caller: Caller): void {
    const admission = this.cap.admit(caller.limitId);
    if (!admission.admitted) {
      const error = admission.scope === 'client' ? rpcErrors.tooManyConnections(admission.description) : rpcErrors.serviceFull(admission.description);
      endSocketWithJson(socket, error.status, JSON.stringify(errorResponse(null, error)), { 'retry-after': String(RETRY_AFTER_SECONDS) });
      return;
    }
    // The socket closes whether the handshake fails or the connection ends later: the place is given back then.
    socket.once('close', admission.release);
    this.wss.handleUpgrade(req, socket, head, (ws) => this.serve(networkName, ws, caller));
  }

  private serve(networkName: string, ws: WebSocket, connection: Caller): void {
    const { network } = this.gw.entry(networkName);
    const hub = network.hub;
    const maxBuffered = this.gw.config.gateway.wsMaxBufferedBytes;
    /** Whether more may be written: false once closed, or cut off for leaving more than the bound unread. */
    const writable = (): boolean => {
      if (ws.readyState !== WebSocket.OPEN) return false;
      if (ws.bufferedAmount <= maxBuffered) return true;
      this.cutOff(ws, `client left more than ${maxBuffered} bytes unread`);
      return false;
    };
    const send = (frame: string) => {
      if (writable()) ws.send(frame);
    };
    // A block notifies every subscription of a connection in one turn: its frames leave in one write (the
    // socket corked until the turn ends) rather than a system call per frame.
    const socket = (ws as unknown as { _socket: Socket })._socket;
    let holding = false;
    const holdWritesThisTurn = () => {
      if (holding) return;
      holding = true;
      socket.cork();
      process.nextTick(() => {
        holding = false;
        socket.uncork();
      });
    };
    const sink: SubscriberSink = {
      get open() {
        return ws.readyState === WebSocket.OPEN;
      },
      notify: (subscription, body) => {
        if (!writable()) return;
        holdWritesThisTurn();
        ws.send(notificationHead(subscription), { fin: false });
        ws.send(body, { binary: false, fin: true });
      },
    };
    const limit = this.gw.config.gateway.maxSubscriptionsPerConnection;
    const ctx: AnswerContext = {
      ...httpAnswerContext(this.gw, networkName),
      isAllowed: (method) => this.gw.relayedMethods.has(method) || this.gw.subscriptionMethods.has(method),
      where: 'on this WebSocket',
      local: (request: CheckedRequest): Promise<RpcOutcome> | undefined => {
        if (request.method === 'eth_subscribe') {
          // Counts the subscriptions still being made too (see subscriptionsOf): a batch cannot get past it.
          if (hub.subscriptionsOf(sink) >= limit) {
            return Promise.reject(rpcErrors.tooManySubscriptions(limit));
          }
          return hub.subscribe(sink, request.params);
        }
        if (request.method === 'eth_unsubscribe') {
          const [id] = request.params;
          if (typeof id !== 'string') return Promise.reject(rpcErrors.invalidParams('params[0] must be a subscription id'));
          return Promise.resolve({ result: hub.unsubscribe(sink, id) });
        }
        return undefined;
      },
    };

    this.alive.add(ws);
    ws.on('pong', () => this.alive.add(ws));
    ws.on('message', (data: Buffer) => this.guardFrame(ws, () => {
      this.alive.add(ws);
      const started = performance.now();
      // Each message is a request of its own for metrics; the connection's caller carries key and limits.
      const caller: RequestFacts = { requestId: connection.requestId, apiKey: connection.apiKey, method: undefined };
      const done = (status: number, frame: string) => {
        send(frame);
        recordRequest(this.gw, networkName, 'ws', caller, status, started);
      };
      let body: unknown;
      try {
        body = parseJson(data, this.gw.config.maxJsonDepth);
      } catch (err) {
        const error = asRpcError(err);
        done(error.status, JSON.stringify(errorResponse(null, error)));
        return;
      }
      caller.method = methodOf(body);
      void answerBody(ctx, body, (cost) => connection.admit(cost)).then((answer) => done(answer.status, serializeResponse(answer.body)));
    }));
    ws.on('close', () => hub.dropClient(sink));
    ws.on('error', () => hub.dropClient(sink));
  }

  /**
   * Runs the handling of one frame so that nothing it throws can reach ws's socket callbacks, where it
   * would end the process: the client gets an internal error frame and the connection stays open.
   */
  private guardFrame(ws: WebSocket, handle: () => void): void {
    try {
      handle();
    } catch (err) {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(errorResponse(null, asRpcError(err))));
    }
  }

  close(): void {
    clearInterval(this.heartbeat);
    clearInterval(this.stallSweep);
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }
}
