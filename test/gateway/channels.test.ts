/**
 * The details of the channels that the transparency corpus does not show: the methods listing, the id of a
 * GET, CORS for browser dapps, /healthz, and the settings that shape the channels (RELAYED_METHODS,
 * MAX_SUBSCRIPTIONS_PER_CONNECTION).
 */
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.js';
import { http, request, postJson, postWithHost } from '../support/http.js';
import { WsClient } from '../support/ws.js';
import { GET_METHODS, POST_METHODS } from '../../src/gateway/methods.js';

describe('gateway channels', function () {
  this.timeout(60_000);

  describe('with the default settings', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ PORT_MAINNET: '0' });
    });
    after(() => service?.stop());

    it('GET /v1/jsonrpc/:network/methods lists the GET and POST methods', async () => {
      const res = await http(`${service.url}/v1/jsonrpc/mainnet/methods`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(res.json, { get: [...GET_METHODS], post: [...POST_METHODS] });
    });

    it('a GET has the id of its `id` query parameter (an integer when numeric), else 1, and no params means []', async () => {
      const cases: [string, unknown][] = [
        ['', 1],
        ['?id=42', 42],
        ['?id=-3', -3],
        ['?id=abc', 'abc'],
        ['?id=0x10', '0x10'],
        ['?params=[]&id=7', 7],
      ];
      for (const [query, id] of cases) {
        const res = await http(`${service.url}/v1/jsonrpc/mainnet/eth_blockNumber${query}`);
        assert.deepEqual(res.json, { jsonrpc: '2.0', id, result: '0x0' }, query);
      }
    });

    it('takes a trailing slash after the network or the method', async () => {
      const body = { jsonrpc: '2.0', id: 1, method: 'eth_estimateGas', params: [{ to: '0x' + '11'.repeat(20) }] };
      for (const path of ['mainnet/', 'mainnet/eth_estimateGas/']) {
        const res = await postJson(`${service.url}/v1/jsonrpc/${path}`, body);
        assert.deepEqual(res.json, { jsonrpc: '2.0', id: 1, result: '0x5208' }, path);
      }
      assert.deepEqual((await http(`${service.url}/v1/jsonrpc/mainnet/eth_blockNumber/`)).json, { jsonrpc: '2.0', id: 1, result: '0x0' });
    });

    it('answers CORS preflights and allows any origin on every gateway address', async () => {
      const preflight = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type', origin: 'https://dapp.example' };
      for (const [url, host] of [
        [`${service.url}/v1/jsonrpc/mainnet`, undefined],
        [`${service.url}/`, 'mainnet.localhost'],
        [`${service.networkUrls.mainnet}/`, undefined],
      ] as const) {
        const res = await request(url, { method: 'OPTIONS', headers: { ...preflight, ...(host ? { host } : {}) } });
        assert.equal(res.status, 204, url);
        assert.equal(res.headers.get('access-control-allow-origin'), '*');
        assert.match(res.headers.get('access-control-allow-methods') ?? '', /POST/);
        assert.equal(res.headers.get('access-control-allow-headers'), 'content-type');
      }
      const call = await postJson(`${service.networkUrls.mainnet}/`, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }, { origin: 'https://dapp.example' });
      assert.equal(call.headers.get('access-control-allow-origin'), '*');
      const error = await http(`${service.url}/v1/jsonrpc/nonet/eth_blockNumber`);
      assert.equal(error.headers.get('access-control-allow-origin'), '*', 'errors too, so the page can read them');
    });

    it('answers GET /healthz 200 with each network reachable', async () => {
      const res = await http(`${service.url}/healthz`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, { ready: true, status: 'ok', networks: { mainnet: true } });
    });
  });

  describe('with RELAYED_METHODS and MAX_SUBSCRIPTIONS_PER_CONNECTION set', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ RELAYED_METHODS: 'eth_chainId,eth_blockNumber', MAX_SUBSCRIPTIONS_PER_CONNECTION: '2' });
    });
    after(() => service?.stop());

    it('relays only the listed methods on {network_url}/ and WebSocket; the REST lists do not change', async () => {
      const call = (method: string) => postWithHost(`${service.url}/`, 'mainnet.localhost', { jsonrpc: '2.0', id: 1, method, params: [] });
      assert.equal((await call('eth_chainId')).json.result, '0x1');
      const denied = await call('eth_gasPrice');
      assert.equal(denied.status, 404);
      assert.equal(denied.json.error.code, -32601);
      assert.equal((await http(`${service.url}/v1/jsonrpc/mainnet/eth_gasPrice`)).status, 200);

      const ws = await WsClient.connect(`${service.url.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`);
      try {
        assert.equal((await ws.call('eth_blockNumber')).result, '0x0');
        assert.equal((await ws.call('eth_gasPrice')).error.code, -32601);
      } finally {
        await ws.close();
      }
    });

    it('refuses a subscription beyond the limit of a connection, and counts per connection', async () => {
      const [a, b] = await Promise.all([
        WsClient.connect(`${service.url.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`),
        WsClient.connect(`${service.url.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`),
      ]);
      try {
        const first = await a.call('eth_subscribe', ['newHeads']);
        assert.match(first.result, /^0x/);
        assert.match((await a.call('eth_subscribe', ['newPendingTransactions'])).result, /^0x/);
        const third = await a.call('eth_subscribe', ['logs', {}]);
        assert.equal(third.error?.code, -32005, JSON.stringify(third));
        assert.match((await b.call('eth_subscribe', ['newHeads'])).result, /^0x/);
        assert.equal((await a.call('eth_unsubscribe', [first.result])).result, true);
        assert.match((await a.call('eth_subscribe', ['logs', {}])).result, /^0x/, 'room again after an unsubscribe');
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  });
});
