import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.js';
import { AnvilProcess } from '../support/upstreams.js';
import { freePort } from '../../src/devchain/anvil.js';
import { http, postWithHost } from '../support/http.js';
import { validator } from '../../src/shared/schemas.js';
import { until } from '../support/wait.js';

/** Every key of the agreed GET /status shape (docs/gateway-head.md), no more. */
const UPSTREAM_KEYS = ['errorRate', 'head', 'id', 'lag', 'latencyMs', 'state', 'transport', 'url'];

describe('gateway: GET /status', function () {
  this.timeout(60_000);
  let anvil: AnvilProcess;
  let service: TestService;
  let deadPort: number;

  before(async () => {
    anvil = await AnvilProcess.start();
    await anvil.rpc('anvil_mine', ['0x64']);
    deadPort = await freePort();
    const withSecret = anvil.url.replace('http://', 'http://user:s3cret@') + '/?apikey=APIKEY123';
    service = await startTestService({
      UPSTREAM_MAINNET: [withSecret, anvil.url.replace('http://', 'ws://'), `http://127.0.0.1:${deadPort}`].join(','),
      HEALTH_CHECK_INTERVAL_MS: '100',
    });
  });
  after(async () => {
    await service?.stop();
    await anvil?.stop();
  });

  it('answers the agreed shape: heads, lag, latency, error rate, state, cache and the order book', async () => {
    for (let i = 0; i < 6; i++) {
      const res = await postWithHost(service.url, 'mainnet.localhost', { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0x1', false] });
      assert.equal(res.json.result.number, '0x1');
    }
    // Uncached reads take turns on the two answering upstreams: both have latency samples.
    for (let i = 0; i < 4; i++) {
      const res = await postWithHost(service.url, 'mainnet.localhost', { jsonrpc: '2.0', id: 1, method: 'eth_gasPrice', params: [] });
      assert.match(res.json.result, /^0x/);
    }
    await until(async () => (await http(`${service.url}/status`)).json.networks.mainnet.upstreams[2].state === 'out', 'the dead upstream out', 15_000);

    const res = await http(`${service.url}/status`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const valid = validator<any>('status.schema.json');
    assert.ok(valid(res.json), JSON.stringify(valid.errors));
    assert.deepEqual(Object.keys(res.json).sort(), ['networks', 'orderbook']);
    assert.deepEqual(res.json.orderbook, { state: 'down', reason: 'off (ORDERBOOK=off)', indexerBlock: null, role: null });

    const mainnet = res.json.networks.mainnet;
    assert.deepEqual(Object.keys(mainnet).sort(), ['cache', 'chainId', 'head', 'upstreams']);
    assert.equal(mainnet.chainId, 1);
    assert.equal(mainnet.head, 100);
    // Block 1 is far below the head: the first read misses, the next five hit.
    assert.equal(mainnet.cache.misses, 1);
    assert.equal(mainnet.cache.hits, 5);
    assert.equal(mainnet.cache.hitRatio, 0.833);

    const [secret, ws, dead] = mainnet.upstreams;
    assert.deepEqual(Object.keys(secret).sort(), UPSTREAM_KEYS, JSON.stringify(secret));
    assert.equal(secret.id, 'mainnet-0');
    assert.equal(secret.url, `http://127.0.0.1:${anvil.port}/…`, 'no credentials, no key in the path');
    assert.ok(!res.text.includes('s3cret') && !res.text.includes('APIKEY123'));
    assert.equal(secret.transport, 'http');
    assert.equal(ws.transport, 'ws');
    assert.equal(ws.url, `ws://127.0.0.1:${anvil.port}`);
    for (const up of [secret, ws]) {
      assert.equal(up.state, 'in');
      assert.equal(up.head, 100);
      assert.equal(up.lag, 0);
      assert.equal(up.errorRate, 0);
      assert.equal(typeof up.latencyMs.p50, 'number');
      assert.ok(up.latencyMs.p99 >= up.latencyMs.p50);
    }
    assert.equal(dead.state, 'out');
    assert.match(dead.reason, /./);
    assert.equal(dead.head, null);
    assert.equal(dead.lag, null);
  });
});
