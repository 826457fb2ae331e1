/**
 * The seven findings of the hostile-input review (issue 9), each as its own regression test: a deep body
 * that used to end the process, deep params that used to give 500, WebSocket batches that got past the
 * subscription cap, unknown HTTP methods, `__proto__` in a query, refusals of Node's HTTP parser and of the
 * WebSocket handshake without a JSON body, and X-Forwarded-For entries a client writes itself.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { Wallet } from 'ethers';
import { spawnService, serviceEnv, type ServiceProcess } from '../support/process.js';
import { startTestService, type TestService } from '../support/service.js';
import { http, postJson, rawRequest, request, type HttpResult } from '../support/http.js';
import { startNginx, type Nginx } from '../support/nginx.js';
import { WsClient } from '../support/ws.js';
import { signOrderNative } from '../support/orders.js';
import { TOKENS } from '../support/orderbook.js';
import { ValidationPool } from '../../src/orderbook/write/validation/pool.js';

const DEEP = '['.repeat(5000) + ']'.repeat(5000);
const deepValue = (levels: number) => JSON.parse('['.repeat(levels) + ']'.repeat(levels)) as unknown;

/** A refusal of the order book: status, `{errorType, description}` and nothing else, no stack trace. */
function assertOrderbookRefusal(res: HttpResult, status: number, errorType: string, description?: RegExp): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(Object.keys(res.json ?? {}).sort(), ['description', 'errorType'], res.text);
  assert.equal(res.json.errorType, errorType, res.text);
  assert.doesNotMatch(res.json.description, /\n\s+at /);
  if (description) assert.match(res.json.description, description);
}

/** A refusal of the gateway: status and a JSON-RPC error envelope with `code`. */
function assertGatewayRefusal(res: HttpResult, status: number, code: number, message?: RegExp): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(res.json?.jsonrpc, '2.0', res.text);
  assert.equal(res.json.error?.code, code, res.text);
  if (message) assert.match(res.json.error.message, message);
}

describe('hostile input: regressions', function () {
  this.timeout(120_000);

  describe('1. a deeply nested order body', () => {
    let service: ServiceProcess;
    before(async () => {
      service = await spawnService(await serviceEnv());
    });
    after(() => service?.stop());

    it('is refused with InvalidOrderData naming the limit, and the process serves on', async () => {
      const [before] = await Promise.all([http(`${service.api}/events`)]);
      const whole = await postJson(`${service.api}/orders`, DEEP);
      assertOrderbookRefusal(whole, 400, 'InvalidOrderData', /deeper than 64 levels \(MAX_JSON_DEPTH\)/);

      const wallet = Wallet.createRandom();
      const { body } = signOrderNative(wallet.privateKey, '0x' + '11'.repeat(32), {
        sellToken: TOKENS.TKA,
        buyToken: TOKENS.TKB,
        sellAmount: 10n ** 18n,
        buyAmount: 10n ** 18n,
      });
      for (const field of Object.keys(body)) {
        const res = await postJson(`${service.api}/orders`, JSON.stringify({ ...body, [field]: 'DEEP' }).replace('"DEEP"', DEEP));
        assertOrderbookRefusal(res, 400, 'InvalidOrderData', /MAX_JSON_DEPTH/);
      }
      // Orders in flight beside the deep ones are answered too.
      const mixed = await Promise.all([postJson(`${service.api}/orders`, DEEP), postJson(`${service.api}/orders`, body)]);
      assertOrderbookRefusal(mixed[0], 400, 'InvalidOrderData');
      assert.ok(mixed[1].status >= 400 && mixed[1].status < 500, mixed[1].text);

      assert.equal(service.child.exitCode, null, 'the service is alive');
      assert.equal((await http(`${service.url}/healthz`)).status, 200);
      assert.deepEqual((await http(`${service.api}/events`)).json, before.json, 'nothing appended');
    });

    it('a validation job that cannot be handed to a worker fails alone', async () => {
      const pool = new ValidationPool(1);
      try {
        const context = { domainSeparator: '0x' + '11'.repeat(32), now: 0, minValidTo: 0 } as never;
        // A function cannot be cloned to a worker: postMessage throws inside the dispatch callback.
        const unclonable = pool.validate({ bad: () => 1 }, context);
        const ordinary = pool.validate({}, context);
        await assert.rejects(unclonable, /could not be handed to a validation worker/);
        await assert.rejects(ordinary, (err: Error & { errorType?: string }) => err.errorType !== undefined);
      } finally {
        await pool.close();
      }
    });
  });

  describe('2-3, 6-7 on the gateway', () => {
    let service: TestService;
    const SUB_LIMIT = 10;
    before(async () => {
      service = await startTestService({ MAX_SUBSCRIPTIONS_PER_CONNECTION: String(SUB_LIMIT) });
    });
    after(() => service?.stop());

    it('2. deep params of methods without a params schema get 400, not 500, on every channel', async () => {
      const methods = ['web3_sha3', 'eth_getProof', 'eth_createAccessList', 'eth_simulateV1'];
      const ws = await WsClient.connect(`${service.url.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`);
      try {
        for (const method of methods) {
          const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [deepValue(3000)] });
          const byHost = await request(`${service.url}/`, {
            method: 'POST',
            headers: { host: 'mainnet.localhost', 'content-type': 'application/json' },
            body,
          });
          assertGatewayRefusal(byHost, 400, -32600, /deeper than 64 levels/);
          assertGatewayRefusal(await postJson(`${service.url}/v1/jsonrpc/mainnet`, body), 400, -32600, /MAX_JSON_DEPTH/);
          // Refused before it is parsed, so the answer's id is null.
          const refusedFrame = () => ws.reply((r) => !Array.isArray(r) && r.id === null);
          ws.sendRaw(body);
          const frame = await refusedFrame();
          assert.equal(frame.error?.code, -32600, JSON.stringify(frame));
          ws.sendRaw(`[{"jsonrpc":"2.0","id":2,"method":"eth_chainId","params":[]},${body}]`);
          const batch = await refusedFrame();
          assert.equal(batch.error?.code, -32600, JSON.stringify(batch));
        }
        const deepParams = '['.repeat(1000) + ']'.repeat(1000);
        const restGet = await http(`${service.url}/v1/jsonrpc/mainnet/eth_getBalance?params=${encodeURIComponent(deepParams)}`);
        assertGatewayRefusal(restGet, 400, -32602, /MAX_JSON_DEPTH/);
        // A fine request on the same connection still works.
        assert.equal((await ws.call('eth_chainId')).result, '0x1');
      } finally {
        await ws.close();
      }
    });

    it('3. batches of eth_subscribe count against the per-connection cap', async () => {
      const ws = await WsClient.connect(`${service.url.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`);
      try {
        // newHeads is served from the head tracker, newPendingTransactions relayed from the upstream: both count.
        const batch = (from: number) =>
          Array.from({ length: 6 }, (_, i) => ({
            jsonrpc: '2.0',
            id: from + i,
            method: 'eth_subscribe',
            params: [i % 2 === 0 ? 'newHeads' : 'newPendingTransactions'],
          }));
        const [first, second] = await Promise.all([ws.request(batch(1)), ws.request(batch(100))]);
        const answers = [...first, ...second];
        const granted = answers.filter((a: any) => typeof a.result === 'string');
        const refused = answers.filter((a: any) => a.error?.code === -32005);
        assert.equal(granted.length, SUB_LIMIT, JSON.stringify(answers));
        assert.equal(refused.length, 12 - SUB_LIMIT);
        const more = await ws.call('eth_subscribe', ['newHeads']);
        assert.equal(more.error?.code, -32005);
      } finally {
        await ws.close();
      }
    });

    it('6. refusals of the HTTP parser and of the WebSocket handshake have JSON bodies', async () => {
      const url = service.url;
      const noHost = await rawRequest(url, 'POST / HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
      assertGatewayRefusal(noHost, 400, -32600, /Host/);
      const noHostApi = await rawRequest(url, 'GET /api/v1/orders HTTP/1.1\r\n\r\n');
      // ORDERBOOK is off here: the order book shape is still the shape of the answer.
      assertOrderbookRefusal(noHostApi, 400, 'MalformedRequest', /Host/);
      const nonUtf8 = await rawRequest(url, Buffer.concat([Buffer.from('GET /api/v1/orders/'), Buffer.from([0xff, 0xfe]), Buffer.from(' HTTP/1.1\r\nHost: localhost\r\n\r\n')]));
      assertOrderbookRefusal(nonUtf8, 400, 'MalformedRequest');
      const bigHeaders = await rawRequest(url, `GET /v1/jsonrpc/mainnet/eth_chainId HTTP/1.1\r\nHost: localhost\r\nX-Pad: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
      assertGatewayRefusal(bigHeaders, 431, -32600);
      const brokenChunks = await rawRequest(url, 'POST /v1/jsonrpc/mainnet HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n');
      assertGatewayRefusal(brokenChunks, 400, -32600, /chunk/);
      const lengthAndChunks = await rawRequest(url, 'POST /api/v1/orders HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n');
      assertOrderbookRefusal(lengthAndChunks, 400, 'MalformedRequest');
      const badHandshake = await rawRequest(url, 'GET /v1/jsonrpc/mainnet/ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
      assertGatewayRefusal(badHandshake, 400, -32600, /Sec-WebSocket-Key/);
      const badVersion = await rawRequest(url, 'GET /v1/jsonrpc/mainnet/ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 7\r\n\r\n');
      assertGatewayRefusal(badVersion, 400, -32600, /Version/);
      assert.equal((await http(`${url}/healthz`)).status, 200);
    });

    describe('7. the client address behind nginx', () => {
      let limited: TestService;
      let nginx: Nginx;
      before(async () => {
        limited = await startTestService({ TRUST_PROXY: '1', RATE_LIMIT_PER_IP: '3', RATE_LIMIT_WINDOW_SECONDS: '60' });
        nginx = await startNginx(limited.url, { forwardedFor: true });
      });
      after(async () => {
        await nginx?.stop();
        await limited?.stop();
      });

      /** eth_blockNumber through nginx from `localAddress`, with a forged X-Forwarded-For. */
      const viaNginx = (localAddress: string, forged: string) =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest(
            `${nginx.url}/v1/jsonrpc/mainnet/eth_blockNumber`,
            { localAddress, headers: { 'x-forwarded-for': forged } },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            },
          );
          req.on('error', reject);
          req.end();
        });

      it('counts hops from the right, so a forged X-Forwarded-For does not escape the per-IP limit', async () => {
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) statuses.push(await viaNginx('127.0.0.2', `10.0.0.${i}`));
        assert.deepEqual(statuses, [200, 200, 200, 429, 429, 429]);
        // Another client (address) has its own allowance.
        assert.equal(await viaNginx('127.0.0.3', '127.0.0.2'), 200);
      });
    });
  });

  describe('4-5 on the order book', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ ORDERBOOK: 'on' });
    });
    after(() => service?.stop());

    it('4. methods nothing implements get 405 with Allow and the order book body', async () => {
      for (const method of ['TRACE', 'PROPFIND', 'PURGE', 'SEARCH', 'LOCK']) {
        for (const path of ['/api/v1/orders', `/api/v1/orders/0x${'ab'.repeat(56)}`, '/api/v1/trades']) {
          const res = await request(`${service.url}${path}`, { method });
          assertOrderbookRefusal(res, 405, 'MethodNotAllowed', new RegExp(method));
          assert.match(res.headers.get('allow') ?? '', /GET/);
        }
        const nowhere = await request(`${service.url}/api/v1/nowhere`, { method });
        assertOrderbookRefusal(nowhere, 404, 'NotFound');
      }
      const gateway = await request(`${service.url}/v1/jsonrpc/mainnet/eth_chainId`, { method: 'PUT' });
      assertGatewayRefusal(gateway, 405, -32600);
      assert.equal(gateway.headers.get('allow'), 'GET, POST');
    });

    it('5. __proto__ in a query is an unknown parameter like any other', async () => {
      for (const path of ['/orders', '/trades', '/events', '/events/stream']) {
        for (const query of ['__proto__=1', '__proto__[owner]=x', 'constructor=1']) {
          const res = await http(`${service.url}/api/v1${path}?${query}`);
          assertOrderbookRefusal(res, 400, 'InvalidOrderData', /unknown field/);
        }
      }
    });
  });
});
