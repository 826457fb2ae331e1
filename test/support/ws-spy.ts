/**
 * A pass-through WebSocket spy between the gateway and a node: every frame either way is forwarded as is
 * and kept (parsed), so that a test sees what happened at the node, not in the gateway's own bookkeeping
 * (e.g. an upstream subscription really ended: eth_unsubscribe sent and answered true).
 */
import WebSocket, { WebSocketServer } from 'ws';
import { freePort } from '../../src/devchain/anvil.js';

export interface SpiedFrame {
  /** 'up': gateway to node; 'down': node to gateway. */
  direction: 'up' | 'down';
  connection: number;
  message: any;
}

export class WsSpy {
  readonly frames: SpiedFrame[] = [];
  private connections = 0;

  private constructor(
    private readonly server: WebSocketServer,
    readonly port: number,
  ) {}

  static async start(targetUrl: string): Promise<WsSpy> {
    const port = await freePort();
    const server = new WebSocketServer({ port, host: '127.0.0.1' });
    const spy = new WsSpy(server, port);
    server.on('connection', (client) => {
      const connection = ++spy.connections;
      const node = new WebSocket(targetUrl);
      const early: string[] = [];
      node.on('open', () => early.splice(0).forEach((f) => node.send(f)));
      client.on('message', (data) => {
        const text = data.toString();
        spy.keep('up', connection, text);
        if (node.readyState === WebSocket.OPEN) node.send(text);
        else early.push(text);
      });
      node.on('message', (data) => {
        const text = data.toString();
        spy.keep('down', connection, text);
        if (client.readyState === WebSocket.OPEN) client.send(text);
      });
      client.on('close', () => node.close());
      node.on('close', () => client.close());
      client.on('error', () => node.terminate());
      node.on('error', () => client.terminate());
    });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    return spy;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  /** The answer the node sent to the gateway's request with that id on that connection. */
  answerTo(request: SpiedFrame): any {
    return this.frames.find((f) => f.direction === 'down' && f.connection === request.connection && f.message?.id === request.message.id)
      ?.message;
  }

  /** The gateway's requests of `method`. */
  requests(method: string): SpiedFrame[] {
    return this.frames.filter((f) => f.direction === 'up' && f.message?.method === method);
  }

  /**
   * Upstream subscriptions made by the gateway (eth_subscribe answered with an id) with their kind, and
   * whether each was ended (eth_unsubscribe of that id answered true).
   */
  subscriptions(): { id: string; kind: string; ended: boolean }[] {
    return this.requests('eth_subscribe')
      .map((req) => ({ req, answer: this.answerTo(req) }))
      .filter(({ answer }) => typeof answer?.result === 'string')
      .map(({ req, answer }) => {
        const id = answer.result as string;
        const ended = this.requests('eth_unsubscribe').some(
          (u) => u.connection === req.connection && u.message.params?.[0] === id && this.answerTo(u)?.result === true,
        );
        return { id, kind: String(req.message.params?.[0]), ended };
      });
  }

  async stop(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private keep(direction: 'up' | 'down', connection: number, text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      message = text;
    }
    this.frames.push({ direction, connection, message });
  }
}
