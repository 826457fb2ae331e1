/**
 * The runtime's ceiling for a JSON-RPC relay: a node:http server that forwards each POST body to one
 * upstream through an undici pool and sends the upstream's bytes back, with nothing else.
 *
 * - `dispatch` (the default, the ceiling): undici's lowest-overhead API, a handler collecting the answer,
 *   as the gateway's HTTP upstream uses it, so that the comparison measures the gateway's features rather
 *   than client plumbing;
 * - `request`: pool.request() and body.arrayBuffer(), the way most Node relays are written.
 *
 *   node dist/bench/bare-relay.js <port> <upstream url> [dispatch|request]
 *
 * The in-process micro-benchmark (gateway-micro.ts) uses the same handler without a listener.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { Pool, type Dispatcher } from 'undici';

const headers = { 'content-type': 'application/json' };

/** Collects the upstream's answer and writes it to the client as it came. */
class Forward implements Dispatcher.DispatchHandler {
  private status = 0;
  private readonly chunks: Buffer[] = [];

  constructor(private readonly res: ServerResponse) {}

  /** Present so that undici treats this as a handler of its current API (it checks for this method). */
  onRequestStart(): void {}

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const body = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.res.writeHead(this.status, { 'content-type': 'application/json', 'content-length': body.length });
    this.res.end(body);
  }

  onResponseError(): void {
    this.res.writeHead(502).end();
  }
}

function viaRequest(pool: Pool, target: URL, body: Buffer, res: ServerResponse): void {
  pool
    .request({ path: target.pathname, method: 'POST', headers, body })
    .then(async (answer) => {
      const bytes = Buffer.from(await answer.body.arrayBuffer());
      res.writeHead(answer.statusCode, { 'content-type': 'application/json', 'content-length': bytes.length });
      res.end(bytes);
    })
    .catch(() => res.writeHead(502).end());
}

export type BareApi = 'dispatch' | 'request';

/** The relay's request handler: each POST body forwarded to `upstream`, its answer sent back as it came. */
export function bareRelayHandler(upstream: string, api: BareApi = 'dispatch'): (req: IncomingMessage, res: ServerResponse) => void {
  const target = new URL(upstream);
  const pool = new Pool(target.origin, { connections: 128, pipelining: 1, keepAliveTimeout: 30_000 });
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      if (api === 'request') viaRequest(pool, target, body, res);
      else pool.dispatch({ path: target.pathname, method: 'POST', headers, body }, new Forward(res));
    });
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [port, upstream, api = 'dispatch'] = process.argv.slice(2);
  if (!port || !upstream || (api !== 'dispatch' && api !== 'request')) {
    console.error('usage: bare-relay <port> <upstream url> [dispatch|request]');
    process.exit(2);
  }
  createServer(bareRelayHandler(upstream, api)).listen(Number(port), '127.0.0.1');
  process.on('SIGTERM', () => process.exit(0));
}
