/**
 * Bad input on every channel: each gets the documented status and JSON-RPC error code, in a JSON-RPC
 * envelope with no stack trace, and leaves the service as it was (after each test a good request still
 * works on every channel and no block was mined).
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { startTestService, type TestService } from '../support/service.js';
import { http, request, postWithHost, type HttpResult } from '../support/http.js';
import { WsClient } from '../support/ws.js';
import { DEV_ADDRESSES } from '../support/chain.js';
import { until } from '../support/wait.js';

const MAX_BODY_BYTES = 4096;
const MAX_BATCH_SIZE = 5;
const A0 = DEV_ADDRESSES[0];
const HASH = '0x' + 'ab'.repeat(32);

type Id = string | number | null;

/** The body of a gateway error: an envelope with the code, a one-line message and no result. */
function assertErrorBody(body: any, code: number, id: Id = null): void {
  assert.equal(body?.jsonrpc, '2.0', JSON.stringify(body));
  assert.equal(body.id, id, JSON.stringify(body));
  assert.equal(body.error?.code, code, JSON.stringify(body));
  assert.equal(typeof body.error.message, 'string');
  assert.ok(!('result' in body));
  assert.doesNotMatch(body.error.message, /\n|\bat .+:\d+:\d+/, 'no stack trace in a response');
}

function assertError(res: HttpResult, status: number, code: number, id: Id = null): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assertErrorBody(res.json, code, id);
}

const envelope = (method: string, params: unknown, id: Id = 1) => ({ jsonrpc: '2.0', id, method, params });

describe('gateway bad input', function () {
  this.timeout(60_000);
  let service: TestService;
  let blockNumber: string;
  let ws: WsClient;
  /** The three places that take a POSTed JSON-RPC body, each with a method it accepts. */
  let posts: { name: string; url: string; host?: string; method: string; badHex: unknown[] }[];

  const restGet = (path: string) => http(`${service.url}/v1/jsonrpc/${path}`);
  const post = (target: (typeof posts)[number], body: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    request(target.url, { method: 'POST', headers: { ...headers, ...(target.host ? { host: target.host } : {}) }, body });

  before(async () => {
    service = await startTestService({
      PORT_MAINNET: '0',
      MAX_BODY_BYTES: String(MAX_BODY_BYTES),
      MAX_BATCH_SIZE: String(MAX_BATCH_SIZE),
    });
    posts = [
      { name: 'REST POST', url: `${service.url}/v1/jsonrpc/mainnet`, method: 'eth_call', badHex: [{ to: '0x12' }] },
      { name: '{network_url}/ by Host', url: `${service.url}/`, host: 'mainnet.localhost', method: 'eth_getBalance', badHex: ['0x12', 'latest'] },
      { name: '{network_url}/ by port', url: `${service.networkUrls.mainnet}/`, method: 'eth_getBalance', badHex: [A0, '0xg'] },
    ];
    blockNumber = (await restGet('mainnet/eth_blockNumber')).json.result;
    ws = await WsClient.connect(`${service.url.replace('http', 'ws')}/ws`, 'mainnet.localhost');
  });

  after(async () => {
    await ws?.close();
    await service?.stop();
  });

  afterEach('the service still serves every channel, and nothing was mined', async () => {
    const rest = await restGet('mainnet/eth_blockNumber?id=2');
    assert.deepEqual(rest.json, { jsonrpc: '2.0', id: 2, result: blockNumber });
    for (const target of posts.slice(1)) {
      const res = await post(target, JSON.stringify(envelope('eth_blockNumber', [], 3)));
      assert.deepEqual(res.json, { jsonrpc: '2.0', id: 3, result: blockNumber }, target.name);
    }
    assert.ok(ws.isOpen);
    assert.equal((await ws.call('eth_blockNumber')).result, blockNumber);
  });

  describe('POSTed bodies, on each of REST POST, {network_url}/ by Host and by port', () => {
    const cases: { name: string; body: (method: string, badHex: unknown[]) => string; status: number; code: number; id?: Id; headers?: Record<string, string> }[] = [
      { name: 'invalid JSON', body: () => '{"jsonrpc":"2.0","id":1,', status: 400, code: -32700 },
      { name: 'a body that is a number', body: () => '42', status: 400, code: -32600 },
      { name: 'a body that is a string', body: () => '"x"', status: 400, code: -32600 },
      { name: 'a body that is null', body: () => 'null', status: 400, code: -32600 },
      { name: 'an empty body', body: () => '', status: 400, code: -32700 },
      {
        name: 'no Content-Type',
        body: (m) => JSON.stringify(envelope(m, [])),
        headers: {},
        status: 400,
        code: -32600,
      },
      {
        name: 'Content-Type text/plain',
        body: (m) => JSON.stringify(envelope(m, [])),
        headers: { 'content-type': 'text/plain' },
        status: 400,
        code: -32600,
      },
      { name: 'jsonrpc "1.0"', body: (m) => JSON.stringify({ ...envelope(m, [], 7), jsonrpc: '1.0' }), status: 400, code: -32600, id: 7 },
      { name: 'jsonrpc 2 as a number', body: (m) => JSON.stringify({ ...envelope(m, [], 7), jsonrpc: 2 }), status: 400, code: -32600, id: 7 },
      { name: 'no jsonrpc member', body: (m) => JSON.stringify({ id: 7, method: m, params: [] }), status: 400, code: -32600, id: 7 },
      { name: 'no method', body: () => JSON.stringify({ jsonrpc: '2.0', id: 8, params: [] }), status: 400, code: -32600, id: 8 },
      { name: 'a method that is not a string', body: () => JSON.stringify(envelope(42 as never, [], 8)), status: 400, code: -32600, id: 8 },
      { name: 'no id (a notification)', body: (m) => JSON.stringify({ jsonrpc: '2.0', method: m, params: [] }), status: 400, code: -32600 },
      { name: 'params that is an object', body: (m) => JSON.stringify(envelope(m, { a: 1 }, 's')), status: 400, code: -32602, id: 's' },
      { name: 'params that is a string', body: (m) => JSON.stringify(envelope(m, '0x1', 9)), status: 400, code: -32602, id: 9 },
      { name: 'params with bad hex', body: (m, badHex) => JSON.stringify(envelope(m, badHex, 10)), status: 400, code: -32602, id: 10 },
      { name: 'params of the wrong count', body: (m) => JSON.stringify(envelope(m, [], 11)), status: 400, code: -32602, id: 11 },
      { name: 'an empty batch', body: () => '[]', status: 400, code: -32600 },
      {
        name: 'a body over MAX_BODY_BYTES',
        body: (m) => JSON.stringify(envelope(m, [{ data: '0x' + '00'.repeat(MAX_BODY_BYTES) }])),
        status: 413,
        code: -32600,
      },
    ];
    for (const k of cases) {
      it(`${k.name} → ${k.status} / ${k.code}`, async () => {
        for (const target of posts) {
          const res = await post(target, k.body(target.method, target.badHex), k.headers);
          assert.equal(res.status, k.status, `${target.name}: ${res.text}`);
          assertError(res, k.status, k.code, k.id ?? null);
        }
      });
    }

    it('a body over MAX_BODY_BYTES sent chunked (no Content-Length) → 413 / -32600', async () => {
      for (const target of posts) {
        const res = await new Promise<HttpResult>((resolve, reject) => {
          const req = httpRequest(
            target.url,
            { method: 'POST', headers: { 'content-type': 'application/json', ...(target.host ? { host: target.host } : {}) } },
            (r) => {
              const chunks: Buffer[] = [];
              r.on('data', (c: Buffer) => chunks.push(c));
              r.on('end', () => {
                const text = Buffer.concat(chunks).toString();
                resolve({ status: r.statusCode ?? 0, headers: new Headers({ 'content-type': String(r.headers['content-type']) }), text, json: JSON.parse(text) });
              });
            },
          );
          req.on('error', reject);
          for (let i = 0; i < 8; i++) req.write('x'.repeat(1024));
          req.end();
        });
        assertError(res, 413, -32600);
      }
    });

    it('a wrong HTTP method → 405 / -32600', async () => {
      for (const target of posts) {
        const res = await request(target.url, { method: 'PUT', headers: target.host ? { host: target.host } : {} });
        assertError(res, 405, -32600);
      }
      assertError(await request(`${service.url}/`, { method: 'GET', headers: { host: 'mainnet.localhost' } }), 405, -32600);
      assertError(await restGet('mainnet'), 405, -32600, 1);
    });
  });

  describe('methods not permitted on the channel → 404 / -32601', () => {
    it('on REST GET: POST-list and unlisted methods', async () => {
      for (const method of ['eth_call', 'eth_sendRawTransaction', 'eth_chainId', 'eth_sendTransaction', 'anvil_mine']) {
        assertError(await restGet(`mainnet/${method}?params=[]`), 404, -32601, 1);
      }
      assertError(await restGet('mainnet/eth_call?id=12&params=not-json'), 404, -32601, 12);
    });

    it('on REST POST: GET-list and unlisted methods, in the body or in the path', async () => {
      const url = `${service.url}/v1/jsonrpc/mainnet`;
      for (const method of ['eth_getBalance', 'eth_blockNumber', 'eth_sendTransaction', 'evm_mine']) {
        assertError(await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(envelope(method, [], 4)) }), 404, -32601, 4);
        assertError(await request(`${url}/${method}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(envelope(method, [], 5)) }), 404, -32601, 5);
      }
    });

    it('on {network_url}/: node-key, admin, debug and dev-chain methods, and eth_subscribe', async () => {
      for (const target of posts.slice(1)) {
        for (const method of ['eth_sendTransaction', 'eth_sign', 'personal_sign', 'admin_peers', 'debug_traceTransaction', 'miner_start', 'anvil_mine', 'evm_mine', 'hardhat_mine', 'eth_subscribe']) {
          assertError(await post(target, JSON.stringify(envelope(method, [], 'm'))), 404, -32601, 'm');
        }
      }
    });

    it('on WebSocket: the same, as an error reply', async () => {
      for (const method of ['eth_sendTransaction', 'anvil_setBalance', 'evm_increaseTime', 'debug_traceCall']) {
        assertErrorBody(await ws.call(method, []), -32601, ws.lastId);
      }
    });
  });

  describe('REST-only errors', () => {
    it('path method and body method that differ → 400 / -32600', async () => {
      const res = await request(`${service.url}/v1/jsonrpc/mainnet/eth_call`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(envelope('eth_estimateGas', [{ to: A0 }], 6)),
      });
      assertError(res, 400, -32600, 6);
    });

    it('a batch on REST POST → 400 / -32600', async () => {
      const res = await request(`${service.url}/v1/jsonrpc/mainnet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([envelope('eth_call', [{ to: A0 }])]),
      });
      assertError(res, 400, -32600);
    });

    it('GET params that is not JSON → 400 / -32700, with the id of the query', async () => {
      assertError(await restGet('mainnet/eth_getBalance?id=21&params=[%220x1%22,'), 400, -32700, 21);
    });

    it('GET params that is not an array → 400 / -32602', async () => {
      assertError(await restGet(`mainnet/eth_getBalance?params=${encodeURIComponent('{"a":1}')}`), 400, -32602, 1);
      assertError(await restGet('mainnet/eth_getBalance?params=5&id=abc'), 400, -32602, 'abc');
      assertError(await restGet(`mainnet/eth_getBalance?params=${encodeURIComponent('"latest"')}`), 400, -32602, 1);
    });

    const wrongParams: [string, unknown[]][] = [
      ['eth_getBalance', ['0x12', 'latest']],
      ['eth_getBalance', [A0, 'lastest']],
      ['eth_getBalance', [A0, 'latest', 'extra']],
      ['eth_getBalance', []],
      ['eth_getBalance', [42, 'latest']],
      ['eth_getBlockByNumber', ['0x1', 'yes']],
      ['eth_getBlockByNumber', ['1', false]],
      ['eth_getBlockByHash', ['0x' + 'zz'.repeat(32), false]],
      ['eth_getTransactionReceipt', [HASH.slice(0, 64)]],
      ['eth_blockNumber', [1]],
      ['eth_getLogs', [{ topics: ['0x12'] }]],
      ['eth_getLogs', [{ address: 'nope' }]],
      ['eth_getTransactionByBlockNumberAndIndex', ['latest', 0]],
    ];
    for (const [method, params] of wrongParams) {
      it(`GET ${method} ${JSON.stringify(params)} → 400 / -32602`, async () => {
        assertError(await restGet(`mainnet/${method}?params=${encodeURIComponent(JSON.stringify(params))}&id=30`), 400, -32602, 30);
      });
    }

    const wrongPostParams: [string, unknown[]][] = [
      ['eth_call', []],
      ['eth_call', [{ to: A0, value: 5 }]],
      ['eth_call', [{ to: A0 }, 'nope']],
      ['eth_estimateGas', [{ from: '0x1234' }]],
      ['eth_sendRawTransaction', ['f86c']],
      ['eth_sendRawTransaction', []],
      ['eth_submitWork', ['0x01', HASH, HASH]],
      ['eth_submitHashrate', [HASH]],
    ];
    for (const [method, params] of wrongPostParams) {
      it(`POST ${method} ${JSON.stringify(params)} → 400 / -32602`, async () => {
        const res = await request(`${service.url}/v1/jsonrpc/mainnet/${method}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: JSON.stringify(envelope(method, params, 31)),
        });
        assertError(res, 400, -32602, 31);
      });
    }

    it('a plain GET on the WebSocket paths → 426 / -32600', async () => {
      assertError(await restGet('mainnet/ws'), 426, -32600, 1);
      assertError(await request(`${service.url}/ws`, { headers: { host: 'mainnet.localhost' } }), 426, -32600);
      assertError(await request(`${service.networkUrls.mainnet}/ws`), 426, -32600);
    });

    it('an unknown path → 404 / -32600', async () => {
      assertError(await http(`${service.url}/nothing/here`), 404, -32600);
      assertError(await restGet('mainnet/eth_call/extra'), 404, -32600, 1);
    });
  });

  describe('unknown network → 404 / -32600 naming the known ones', () => {
    function assertUnknown(status: number, body: any, id: Id = null): void {
      assert.equal(status, 404);
      assertErrorBody(body, -32600, id);
      assert.match(body.error.message, /mainnet/);
      assert.deepEqual(body.error.data, { networks: ['mainnet'] });
    }

    it('on REST GET, REST POST and the methods listing', async () => {
      const get = await restGet('nonet/eth_blockNumber?id=40');
      assertUnknown(get.status, get.json, 40);
      const listing = await restGet('nonet/methods');
      assertUnknown(listing.status, listing.json, 1);
      for (const path of ['nonet', 'nonet/eth_call']) {
        const res = await request(`${service.url}/v1/jsonrpc/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(envelope('eth_call', [{ to: A0 }], 41)),
        });
        assertUnknown(res.status, res.json);
      }
    });

    it('on {network_url}/ by a Host that names no network', async () => {
      for (const host of ['nonet.localhost', '127.0.0.1', 'localhost:8080']) {
        const res = await postWithHost(`${service.url}/`, host, envelope('eth_blockNumber', []));
        assertUnknown(res.status, res.json);
      }
    });

    it('on a WebSocket upgrade, by path and by Host', async () => {
      const wsBase = service.url.replace('http', 'ws');
      const byPath = await WsClient.refusal(`${wsBase}/v1/jsonrpc/nonet/ws`);
      assertUnknown(byPath.status, byPath.body);
      const byHost = await WsClient.refusal(`${wsBase}/ws`, 'nonet.localhost');
      assertUnknown(byHost.status, byHost.body);
    });
  });

  describe('batches on {network_url}/', () => {
    it(`more than MAX_BATCH_SIZE (${MAX_BATCH_SIZE}) requests → 400 / -32600`, async () => {
      const batch = Array.from({ length: MAX_BATCH_SIZE + 1 }, (_, i) => envelope('eth_chainId', [], i));
      assertError(await postWithHost(`${service.url}/`, 'mainnet.localhost', batch), 400, -32600);
    });

    it('bad items get their own error in place and the batch is 200', async () => {
      const batch = [
        envelope('eth_chainId', [], 'ok'),
        42,
        { jsonrpc: '1.0', id: 'v', method: 'eth_chainId' },
        envelope('anvil_mine', [], 'm'),
        envelope('eth_getBalance', ['0x12', 'latest'], 'p'),
      ];
      const res = await postWithHost(`${service.url}/`, 'mainnet.localhost', batch);
      assert.equal(res.status, 200);
      assert.equal(res.json.length, 5);
      assert.deepEqual(res.json[0], { jsonrpc: '2.0', id: 'ok', result: '0x1' });
      assertErrorBody(res.json[1], -32600, null);
      assertErrorBody(res.json[2], -32600, 'v');
      assertErrorBody(res.json[3], -32601, 'm');
      assertErrorBody(res.json[4], -32602, 'p');
    });
  });

  describe('WebSocket frames', () => {
    it('a frame of garbage text → -32700, and the connection stays open and answers', async () => {
      ws.sendRaw('}}garbage{{');
      assertErrorBody(await ws.reply(), -32700, null);
      assert.ok(ws.isOpen);
      assert.equal((await ws.call('eth_chainId')).result, '0x1');
    });

    it('a binary frame of random bytes → -32700', async () => {
      ws.socket.send(Buffer.from([0xff, 0x00, 0xfe, 0x13, 0x37]));
      assertErrorBody(await ws.reply(), -32700, null);
    });

    const frames: [string, unknown, number, Id][] = [
      ['a number', 42, -32600, null],
      ['jsonrpc "1.0"', { jsonrpc: '1.0', id: 50, method: 'eth_chainId', params: [] }, -32600, 50],
      ['no method', { jsonrpc: '2.0', id: 51 }, -32600, 51],
      ['no id', { jsonrpc: '2.0', method: 'eth_chainId', params: [] }, -32600, null],
      ['params that is not an array', envelope('eth_chainId', {}, 52), -32602, 52],
      ['bad hex', envelope('eth_getBalance', [A0, '0xzz'], 53), -32602, 53],
      ['eth_unsubscribe with a number', envelope('eth_unsubscribe', [42], 54), -32602, 54],
      ['an empty batch', [], -32600, null],
    ];
    for (const [name, frame, code, id] of frames) {
      it(`a frame with ${name} → ${code}`, async () => {
        ws.sendRaw(JSON.stringify(frame));
        assertErrorBody(await ws.reply(), code, id);
      });
    }

    it('a frame over MAX_BODY_BYTES closes that connection with 1009, and others go on', async () => {
      const big = await WsClient.connect(`${service.url.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`);
      const closed = new Promise<number>((resolve) => big.socket.once('close', (code) => resolve(code)));
      big.sendRaw(JSON.stringify(envelope('eth_call', [{ to: A0, data: '0x' + '00'.repeat(MAX_BODY_BYTES) }])));
      assert.equal(await closed, 1009);
    });

    it('a client that disconnects mid-subscription ends the upstream subscription', async () => {
      const hub = service.gateway.network('mainnet').hub;
      const client = await WsClient.connect(`${service.url.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`);
      // newPendingTransactions is relayed (one upstream subscription); newHeads comes from the head tracker.
      const sub = await client.call('eth_subscribe', ['newPendingTransactions']);
      assert.match(sub.result, /^0x[0-9a-f]+$/);
      assert.match((await client.call('eth_subscribe', ['newHeads'])).result, /^0x[0-9a-f]+$/);
      assert.equal(hub.upstreamSubscriptions, 1);
      assert.equal(hub.clientSubscriptions, 2);
      client.socket.terminate(); // no close handshake: the way a crashed client goes
      await until(() => hub.upstreamSubscriptions === 0 && hub.clientSubscriptions === 0, 'the subscriptions to end');
    });
  });
});
