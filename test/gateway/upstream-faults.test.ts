/**
 * Upstream faults: networks whose upstream refuses connections, hangs, or answers bytes that are not JSON
 * each get 502 / -32603 within UPSTREAM_TIMEOUT_MS, while the embedded mainnet of the same service goes on
 * answering. Only the faults use fake upstreams (a closed port, a silent socket, a garbage HTTP server).
 */
import assert from 'node:assert/strict';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { startTestService, type TestService } from '../support/service.js';
import { http, postJson, postWithHost, type HttpResult } from '../support/http.js';
import { WsClient } from '../support/ws.js';
import { Anvil, freePort } from '../../src/devchain/anvil.js';
import { logger } from '../../src/shared/logger.js';
import { gatewayDefaults } from '../../src/gateway/config.js';

const TIMEOUT_MS = 1_000;
/** The deadline when none is configured: a hanging request must end by TIMEOUT_MS, long before it. */
const DEFAULT_TIMEOUT_MS = gatewayDefaults().upstreamTimeoutMs;
/** Each faulty network and what its 502 says (never the upstream URL, which may hold an API key). */
const FAULTY = ['refused', 'hang', 'garbage', 'wsrefused'] as const;
const CAUSE: Record<(typeof FAULTY)[number], RegExp> = {
  refused: /unreachable \(ECONNREFUSED\)/,
  hang: /timed out/,
  garbage: /not JSON/,
  wsrefused: /unreachable \(ECONNREFUSED\)/,
};

async function listening<T extends TcpServer | HttpServer>(server: T): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/**
 * A request to the network whose upstream hangs: it ends by the configured UPSTREAM_TIMEOUT_MS, so before
 * the default deadline (ten times as long) could have ended it. How fast the other faults fail is no promise
 * (a figure for `npm run bench`); the test's own timeout ends a hang there.
 */
async function byConfiguredDeadline<T>(work: Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await work;
  const took = performance.now() - start;
  assert.ok(took < DEFAULT_TIMEOUT_MS, `ended after ${took.toFixed(0)} ms: the configured ${TIMEOUT_MS} ms deadline did not end it`);
  return result;
}

function assert502(res: HttpResult, id: unknown = 1, cause?: RegExp): void {
  assert.equal(res.status, 502, res.text);
  assert.equal(res.json.jsonrpc, '2.0');
  assert.equal(res.json.id, id);
  assert.equal(res.json.error.code, -32603, res.text);
  assert.ok(!('result' in res.json));
  if (cause) assert.match(res.json.error.message, cause);
  assert.doesNotMatch(res.json.error.message, /127\.0\.0\.1/);
}

describe('gateway upstream faults', function () {
  this.timeout(60_000);
  let service: TestService;
  let refusedPort: number;
  const sockets = new Set<Socket>();
  let hang: TcpServer;
  let garbage: HttpServer;
  let lateAnvil: Anvil | undefined;

  before(async () => {
    refusedPort = await freePort();
    hang = createTcpServer((socket) => {
      sockets.add(socket); // accepts, reads, never answers
      socket.on('close', () => sockets.delete(socket));
    });
    garbage = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.from([0x3c, 0x68, 0x74, 0x6d, 0x6c, 0x3e, 0x00, 0xff, 0xfe, 0x7b]));
    });
    const [hangPort, garbagePort] = await Promise.all([listening(hang), listening(garbage)]);
    service = await startTestService({
      NETWORKS: ['mainnet', ...FAULTY].join(','),
      UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
      UPSTREAM_REFUSED: `http://127.0.0.1:${refusedPort}`,
      CHAIN_ID_REFUSED: '1001',
      UPSTREAM_HANG: `http://127.0.0.1:${hangPort}`,
      CHAIN_ID_HANG: '1002',
      UPSTREAM_GARBAGE: `http://127.0.0.1:${garbagePort}/rpc`,
      CHAIN_ID_GARBAGE: '1003',
      UPSTREAM_WSREFUSED: `ws://127.0.0.1:${refusedPort}`,
      CHAIN_ID_WSREFUSED: '1004',
      PORT_HANG: '0',
    });
  });

  after(async () => {
    await service?.stop();
    await lateAnvil?.stop();
    for (const socket of sockets) socket.destroy();
    hang?.close();
    garbage?.close();
  });

  for (const network of FAULTY) {
    it(`${network}: 502 / -32603 on REST GET, REST POST and {network_url}/, -32603 on WebSocket`, async () => {
      const cause = CAUSE[network];
      const timed = network === 'hang' ? byConfiguredDeadline : <T>(work: Promise<T>) => work;
      assert502(await timed(http(`${service.url}/v1/jsonrpc/${network}/eth_blockNumber`)), 1, cause);
      assert502(
        await timed(postJson(`${service.url}/v1/jsonrpc/${network}`, { jsonrpc: '2.0', id: 2, method: 'eth_call', params: [{ to: '0x' + '11'.repeat(20) }] })),
        2,
        cause,
      );
      assert502(await timed(postWithHost(`${service.url}/`, `${network}.localhost`, { jsonrpc: '2.0', id: 3, method: 'eth_chainId', params: [] })), 3, cause);

      const ws = await WsClient.connect(`${service.url.replace('http', 'ws')}/v1/jsonrpc/${network}/ws`);
      try {
        const reply = await timed(ws.call('eth_blockNumber'));
        assert.equal(reply.error?.code, -32603, JSON.stringify(reply));
        assert.match(reply.error.message, cause);
        assert.ok(ws.isOpen);
      } finally {
        await ws.close();
      }
    });
  }

  it('gives every item of a batch its -32603 error in a 200 batch', async () => {
    const batch = [1, 2].map((id) => ({ jsonrpc: '2.0', id, method: 'eth_blockNumber', params: [] }));
    const res = await byConfiguredDeadline(postWithHost(`${service.url}/`, 'hang.localhost', batch));
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.map((r: any) => [r.id, r.error.code]), [[1, -32603], [2, -32603]]);
  });

  it('gives 502 on the dedicated listener of a network whose upstream hangs', async () => {
    assert502(await byConfiguredDeadline(postJson(service.networkUrls.hang, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })));
  });

  it('answers a relayed eth_subscribe on a network without a WebSocket upstream with an error, not a hang', async () => {
    const ws = await WsClient.connect(`${service.url.replace('http', 'ws')}/ws`, 'refused.localhost');
    try {
      const reply = await ws.call('eth_subscribe', ['newPendingTransactions']);
      assert.equal(reply.error?.code, -32601, JSON.stringify(reply));
      // newHeads and logs come from the head tracker, whatever the upstream: the subscription exists.
      assert.match((await ws.call('eth_subscribe', ['newHeads'])).result, /^0x/);
    } finally {
      await ws.close();
    }
    const wsUpstream = await WsClient.connect(`${service.url.replace('http', 'ws')}/ws`, 'wsrefused.localhost');
    try {
      const reply = await wsUpstream.call('eth_subscribe', ['newPendingTransactions']);
      assert.equal(reply.error?.code, -32603, JSON.stringify(reply));
    } finally {
      await wsUpstream.close();
    }
  });

  it('keeps answering mainnet while requests to a hanging upstream are waiting', async () => {
    const order: string[] = [];
    // Timed from when they are sent.
    const hanging = byConfiguredDeadline(
      Promise.all(
        [1, 2, 3].map((id) =>
          http(`${service.url}/v1/jsonrpc/hang/eth_blockNumber?id=${id}`).then((res) => {
            order.push('hang');
            return res;
          }),
        ),
      ),
    );
    for (let i = 0; i < 5; i++) {
      const res = await http(`${service.url}/v1/jsonrpc/mainnet/eth_blockNumber`);
      assert.equal(res.status, 200);
      assert.equal(res.json.result, '0x0');
      const viaHost = await postWithHost(`${service.url}/`, 'mainnet.localhost', { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
      assert.deepEqual(viaHost.json, { jsonrpc: '2.0', id: 1, result: '0x1' });
      order.push('mainnet');
    }
    for (const res of await hanging) assert502(res, res.json.id);
    assert.deepEqual(order.slice(0, 5), Array(5).fill('mainnet'), 'mainnet answered before the hanging upstream timed out');
  });

  it('reports 503 on /healthz, naming the networks whose upstream is unreachable', async () => {
    const res = await http(`${service.url}/healthz`);
    assert.equal(res.status, 503);
    assert.equal(res.json.ready, false);
    assert.deepEqual(res.json.networks, { mainnet: true, refused: false, hang: false, garbage: false, wsrefused: false });
  });

  it('serves a network again as soon as its upstream comes up', async () => {
    lateAnvil = new Anvil({ name: 'late', chainId: 1001, port: refusedPort, logger });
    await lateAnvil.start();
    const res = await http(`${service.url}/v1/jsonrpc/refused/eth_blockNumber`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json, { jsonrpc: '2.0', id: 1, result: '0x0' });
    const viaWs = await WsClient.connect(`${service.url.replace('http', 'ws')}/ws`, 'wsrefused.localhost');
    try {
      const sub = await viaWs.call('eth_subscribe', ['newHeads']);
      assert.match(sub.result, /^0x/, JSON.stringify(sub));
    } finally {
      await viaWs.close();
    }
  });
});
