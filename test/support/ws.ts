/**
 * A WebSocket JSON-RPC client for tests, on the `ws` package: it keeps replies and eth_subscription
 * notifications apart so that a test can wait for either.
 */
import WebSocket from 'ws';

export interface Notification {
  jsonrpc: string;
  method: string;
  params: { subscription: string; result: any };
}

export interface WsRefusal {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

type Waiter<T> = { match: (value: T) => boolean; resolve: (value: T) => void };

const DEFAULT_WAIT_MS = 15_000;

export class WsClient {
  /** Every notification received, in order. */
  readonly notifications: Notification[] = [];
  private readonly replies: any[] = [];
  private readonly replyWaiters: Waiter<any>[] = [];
  private readonly notificationWaiters: Waiter<Notification>[] = [];
  private nextId = 1;
  /** The id `call` used last. */
  lastId = 0;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => this.receive(JSON.parse(data.toString())));
  }

  /**
   * Opens a connection; `host` sets the Host header (e.g. mainnet.localhost to pick a network by name);
   * `autoPong: false` makes a client that never answers pings, as one whose network path is gone;
   * `headers`: more request headers (e.g. X-Forwarded-For).
   */
  static connect(url: string, host?: string, options: { autoPong?: boolean; headers?: Record<string, string> } = {}): Promise<WsClient> {
    const { headers, ...rest } = options;
    const all = { ...(host ? { host } : {}), ...headers };
    const socket = new WebSocket(url, { ...(Object.keys(all).length > 0 ? { headers: all } : {}), ...rest });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new WsClient(socket)));
      socket.once('error', reject);
    });
  }

  /** Tries to open a connection that the server should refuse; gives the HTTP status and JSON body. */
  static refusal(url: string, host?: string, headers: Record<string, string> = {}): Promise<WsRefusal> {
    const all = { ...(host ? { host } : {}), ...headers };
    const socket = new WebSocket(url, Object.keys(all).length > 0 ? { headers: all } : {});
    return new Promise((resolve, reject) => {
      socket.once('open', () => {
        socket.terminate();
        reject(new Error(`the WebSocket upgrade at ${url} was accepted`));
      });
      socket.once('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, headers: res.headers });
        });
      });
      socket.once('error', (err) => reject(err));
    });
  }

  get isOpen(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  /** Sends a raw frame (any text). */
  sendRaw(frame: string): void {
    this.socket.send(frame);
  }

  /** Sends one request object (or a batch) as given and waits for the reply carrying its id. */
  async request(body: any, timeoutMs = DEFAULT_WAIT_MS): Promise<any> {
    this.socket.send(JSON.stringify(body));
    const id = Array.isArray(body) ? undefined : body.id;
    return this.reply((r) => (Array.isArray(body) ? Array.isArray(r) : !Array.isArray(r) && r.id === id), timeoutMs);
  }

  /** Calls `method` with a fresh numeric id and gives the whole reply. */
  call(method: string, params: unknown[] = []): Promise<any> {
    this.lastId = this.nextId++;
    return this.request({ jsonrpc: '2.0', id: this.lastId, method, params });
  }

  /** The first reply (in arrival order, not yet taken) that matches. */
  reply(match: (reply: any) => boolean = () => true, timeoutMs = DEFAULT_WAIT_MS): Promise<any> {
    const index = this.replies.findIndex(match);
    if (index !== -1) return Promise.resolve(this.replies.splice(index, 1)[0]);
    return this.wait(this.replyWaiters, match, timeoutMs, 'reply');
  }

  /** The first notification of `subscription` received after `after` of them had arrived. */
  notification(subscription: string, after = 0, timeoutMs = DEFAULT_WAIT_MS): Promise<Notification> {
    const match = (n: Notification) => n.params.subscription === subscription;
    const seen = this.notifications.slice(after).find(match);
    if (seen) return Promise.resolve(seen);
    return this.wait(this.notificationWaiters, match, timeoutMs, `notification for ${subscription}`);
  }

  close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }

  private receive(frame: any): void {
    if (!Array.isArray(frame) && frame.method === 'eth_subscription') {
      this.notifications.push(frame);
      this.settle(this.notificationWaiters, frame, () => undefined);
      return;
    }
    this.settle(this.replyWaiters, frame, () => this.replies.push(frame));
  }

  private settle<T>(waiters: Waiter<T>[], value: T, otherwise: () => void): void {
    const index = waiters.findIndex((w) => w.match(value));
    if (index === -1) return otherwise();
    waiters.splice(index, 1)[0].resolve(value);
  }

  private wait<T>(waiters: Waiter<T>[], match: (v: T) => boolean, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter<T> = {
        match,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
      };
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(waiter), 1);
        reject(new Error(`no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      waiters.push(waiter);
    });
  }
}
