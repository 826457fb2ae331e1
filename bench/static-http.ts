/**
 * The runtime's floor for one answer: a node:http server answering every request with the same JSON body
 * of a given size, doing nothing else. The order book bench times GET /api/v1/orders/{UID} next to it, in
 * the same run and the same way (wrk, one connection), so that the machine's own latency tail, its
 * scheduler and its loopback, shows beside the order book's; the gateway bench measures its CPU per
 * request beside a cache hit's, the same bytes answered to the same load. With `busy µs`, each answer
 * first spins that long on the CPU: a server that does that much work of its own and nothing else.
 *
 *   node dist/bench/static-http.js <port> <body bytes> [busy µs]
 */
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { repoPath } from '../src/shared/paths.js';
import { freePort, startChild, waitForAnswer } from './tools.js';

/** The server in a child process (as the services measured beside it are), once it answers. */
export async function startStaticHttp(bytes: number, busyUs = 0): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const child = startChild(process.execPath, [repoPath('dist', 'bench', 'static-http.js'), String(port), String(bytes), String(busyUs)]);
  const url = `http://127.0.0.1:${port}/`;
  const drained = async (res: Response) => (await res.arrayBuffer(), res.ok);
  await waitForAnswer(url, {}, drained, child).catch(async (err) => {
    await child.stop();
    throw err;
  });
  return { url, pid: child.process.pid!, stop: () => child.stop() };
}

/** A JSON string of exactly `bytes` bytes (at least 2). */
function jsonOfSize(bytes: number): Buffer {
  return Buffer.from(JSON.stringify('x'.repeat(Math.max(0, bytes - 2))));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [port, bytes, busyUs = 0] = process.argv.slice(2).map(Number);
  if (!Number.isInteger(port) || !Number.isInteger(bytes) || bytes < 2 || !(busyUs >= 0)) {
    throw new Error('usage: static-http.js <port> <body bytes> [busy µs]');
  }
  const body = jsonOfSize(bytes);
  const headers = { 'content-type': 'application/json', 'content-length': body.length };
  const busyNs = BigInt(Math.round(busyUs * 1000));
  createServer((_req, res) => {
    if (busyNs > 0n) for (const until = process.hrtime.bigint() + busyNs; process.hrtime.bigint() < until; );
    res.writeHead(200, headers);
    res.end(body);
  }).listen(port, '127.0.0.1');
}
