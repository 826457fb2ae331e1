/**
 * The runtime's floor for one GET: a node:http server answering every request with the same JSON body of
 * a given size, doing nothing else. The order book bench times GET /api/v1/orders/{UID} next to it, in the
 * same run and the same way (wrk, one connection), so that the machine's own latency tail, its scheduler
 * and its loopback, shows beside the order book's.
 *
 *   node dist/bench/static-http.js <port> <body bytes>
 */
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

/** A JSON string of exactly `bytes` bytes (at least 2). */
function jsonOfSize(bytes: number): Buffer {
  return Buffer.from(JSON.stringify('x'.repeat(Math.max(0, bytes - 2))));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [port, bytes] = process.argv.slice(2).map(Number);
  if (!Number.isInteger(port) || !Number.isInteger(bytes) || bytes < 2) throw new Error('usage: static-http.js <port> <body bytes>');
  const body = jsonOfSize(bytes);
  const headers = { 'content-type': 'application/json', 'content-length': body.length };
  createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  }).listen(port, '127.0.0.1');
}
