/**
 * The listener's bounds (issue 29, item 6), against the service as a process: a client that sends its
 * headers or its body too slowly is answered 408 and cut off (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS), not
 * after Node's 60 s / 300 s; connections past MAX_CONNECTIONS are closed as they arrive; and a client whose
 * rate limit is spent is refused before its body is read (a 5 MiB gateway body is not waited for).
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { startServiceProcess, removeDataDir, type ServiceProcess } from '../support/service-process.js';
import { request } from '../support/http.js';

/** Opens a TCP connection to the service; resolves once connected. */
function open(url: string): Promise<Socket> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** What the server writes to `socket` until it closes the connection (or `ms` pass: then undefined). */
function untilClosed(socket: Socket, ms: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const timer = setTimeout(() => resolve(undefined), ms);
    socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.on('error', () => undefined);
  });
}

describe('hostile: server bounds and the rate limit before the body', function () {
  this.timeout(60_000);
  const MAX_CONNECTIONS = 12;
  let service: ServiceProcess;

  before(async () => {
    service = await startServiceProcess({
      env: {
        NETWORKS: 'mainnet',
        ORDERBOOK: 'off',
        HEADERS_TIMEOUT_MS: '1000',
        REQUEST_TIMEOUT_MS: '2000',
        MAX_CONNECTIONS: String(MAX_CONNECTIONS),
        RATE_LIMIT_PER_IP: '3',
        RATE_LIMIT_WINDOW_SECONDS: '60',
      },
    });
  });
  after(async () => {
    await service?.stop();
    if (service) removeDataDir(service.dataDir);
  });

  it('answers 408 and closes a connection whose headers never end', async () => {
    const socket = await open(service.url);
    socket.write('GET /v1/jsonrpc/mainnet/eth_blockNumber HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    const answer = await untilClosed(socket, 15_000);
    assert.notEqual(answer, undefined, 'the connection was still open after 15 s');
    assert.match(answer!, /^HTTP\/1\.1 408/);
    assert.match(answer!, /"code":-32600/);
  });

  it('answers 408 and closes a connection whose body never ends', async () => {
    const socket = await open(service.url);
    socket.write('POST /v1/jsonrpc/mainnet HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":');
    const answer = await untilClosed(socket, 15_000);
    assert.notEqual(answer, undefined, 'the connection was still open after 15 s');
    assert.match(answer!, /408/);
  });

  it(`closes connections past MAX_CONNECTIONS as they arrive, and serves again once they are gone`, async () => {
    const held: Socket[] = [];
    try {
      for (let i = 0; i < MAX_CONNECTIONS; i++) held.push(await open(service.url));
      const extra = await open(service.url);
      const answer = await untilClosed(extra, 5_000);
      assert.equal(answer, '', 'the connection past the cap is closed without an answer');
    } finally {
      for (const socket of held) socket.destroy();
    }
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = await request(`${service.url}/v1/jsonrpc/mainnet/eth_blockNumber`).then((r) => r.status, () => 0);
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 200);
  });

  it('refuses a client whose limit is spent before reading its body: a 5 MiB body is not waited for', async () => {
    // Spend the address's budget (the test above made a call too; a 429 here is fine as well).
    for (let i = 0; i < 3; i++) await request(`${service.url}/v1/jsonrpc/mainnet/eth_blockNumber`);
    const socket = await open(service.url);
    // Headers announcing 5 MiB, and only a few bytes of it: the answer must not wait for the rest.
    socket.write(`POST /v1/jsonrpc/mainnet HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${5 * 1024 * 1024}\r\n\r\n[`);
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (d: Buffer) => {
        text += d.toString();
        if (text.includes('\r\n\r\n') && text.includes('}')) resolve(text);
      });
    });
    assert.match(answer, /^HTTP\/1\.1 429/);
    assert.match(answer, /"code":-32005/);
    assert.match(answer, /[Rr]etry-[Aa]fter: \d+/);
    // And the connection is closed: the rest of the body is never read.
    assert.match(answer, /[Cc]onnection: close/);
    assert.notEqual(await untilClosed(socket, 5_000), undefined, 'the connection stayed open for the rest of the body');
  });
});
