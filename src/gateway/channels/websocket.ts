/**
 * {ws_url}/ws (and /v1/jsonrpc/:network/ws): one JSON-RPC message per frame, every relayed method plus
 * eth_subscribe / eth_unsubscribe. A frame that is not JSON gets a -32700 error and the connection stays
 * open; when a client goes away its subscriptions end. A client that vanishes without closing (a dropped
 * network path sends no FIN) is found by pings: one that has not answered the previous ping is dropped.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket } from 'ws';
import type { Gateway } from '../gateway.js';
import { performance } from 'node:perf_hooks';
import { parseJson, errorResponse, serializeResponse, type CheckedRequest, type RpcOutcome } from '../jsonrpc.js';
import { asRpcError, rpcErrors } from '../errors.js';
import type { SubscriberSink } from '../subscriptions.js';
import { answerBody, type AnswerContext } from './answer.js';
import { httpAnswerContext, methodOf } from './network-http.js';
import type { Caller, RequestFacts } from '../access/access.js';
import { recordRequest } from '../requests.js';
import { endSocketWithJson } from '../../http/io.js';

/** A client that lets this much pile up unread is cut off rather than allowed to grow our memory. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export class WebSocketChannel {
  private readonly wss: WebSocketServer;
  /** Clients that answered (or sent anything) since the last ping round. */
  private readonly alive = new WeakSet<WebSocket>();
  private readonly heartbeat?: NodeJS.Timeout;

  constructor(private readonly gw: Gateway) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: gw.config.gateway.maxBodyBytes });
    // A handshake ws refuses (no key, wrong version, not GET) gets the gateway's JSON error, not ws's HTML.
    this.wss.on('wsClientError', (err: Error, socket: Duplex, req: IncomingMessage) => {
      const error = rpcErrors.handshakeRefused(req.method, err.message);
      endSocketWithJson(socket, error.status, JSON.stringify(errorResponse(null, error)), error.headers);
    });
    const interval = gw.config.gateway.wsPingIntervalMs;
    // One timer for all connections rather than one per connection.
    if (interval > 0) this.heartbeat = setInterval(() => this.pingRound(), interval).unref();
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
    this.wss.handleUpgrade(req, socket, head, (ws) => this.serve(networkName, ws, caller));
  }

  private serve(networkName: string, ws: WebSocket, connection: Caller): void {
    const { network } = this.gw.entry(networkName);
    const hub = network.hub;
    const sink: SubscriberSink = {
      get open() {
        return ws.readyState === WebSocket.OPEN;
      },
      send: (frame) => {
        if (ws.readyState !== WebSocket.OPEN) return;
        if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
          ws.close(1008, 'client is not reading its messages');
          return;
        }
        ws.send(frame);
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
        sink.send(frame);
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
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }
}
