import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.js';
import { http, postJson } from '../support/http.js';
import { AnvilProcess, readMetrics } from '../support/upstreams.js';

const logs = (filter: Record<string, unknown>, id: number | string = 1) => ({ jsonrpc: '2.0', id, method: 'eth_getLogs', params: [filter] });

describe('gateway limits, request ids and request metrics', function () {
  this.timeout(60_000);
  let anvil: AnvilProcess;
  let service: TestService;
  before(async () => {
    anvil = await AnvilProcess.start();
    await anvil.rpc('anvil_mine', ['0xc8']);
    service = await startTestService({ UPSTREAM_MAINNET: anvil.url, MAX_LOGS_BLOCK_RANGE: '100', PORT_MAINNET: '0' });
  });
  after(async () => {
    await service?.stop();
    await anvil?.stop();
  });
  /** A POST on the network's dedicated listener ({network_url}/). */
  const post = (body: unknown, headers: Record<string, string> = {}) => postJson(`${service.networkUrls.mainnet}/`, body, headers);

  describe('eth_getLogs block range', () => {
    it('refuses a range wider than MAX_LOGS_BLOCK_RANGE with 400 and -32602', async () => {
      const res = await post(logs({ fromBlock: '0x0', toBlock: '0xc8' }, 4));
      assert.equal(res.status, 400);
      assert.equal(res.json.id, 4);
      assert.equal(res.json.error.code, -32602);
      assert.equal(
        res.json.error.message,
        'Invalid params: eth_getLogs block range too large: fromBlock 0 to toBlock 200 spans 200 blocks, more than the limit of 100; split the query into smaller ranges',
      );
    });

    it('resolves tags against the head it knows ("earliest" to "latest" is 200 blocks here)', async () => {
      const wide = await post(logs({ fromBlock: 'earliest' }));
      assert.equal(wide.status, 400);
      assert.match(wide.json.error.message, /fromBlock "earliest" \(0\) to toBlock "latest" \(200\) spans 200 blocks/);
      const narrow = await post(logs({ fromBlock: '0x80', toBlock: 'latest' }));
      assert.equal(narrow.status, 200);
      assert.deepEqual(narrow.json.result, []);
      const byHash = await post(logs({ blockHash: (await anvil.rpc('eth_getBlockByNumber', ['0x5', false])).hash }));
      assert.deepEqual(byHash.json.result, []);
    });

    it('answers each request of a batch on its own, and refuses on the REST channel too', async () => {
      const batch = await post([logs({ fromBlock: '0xc0' }, 'ok'), logs({ fromBlock: '0x1', toBlock: '0xc8' }, 'wide')]);
      assert.equal(batch.status, 200);
      assert.deepEqual(batch.json[0], { jsonrpc: '2.0', id: 'ok', result: [] });
      assert.equal(batch.json[1].id, 'wide');
      assert.equal(batch.json[1].error.code, -32602);

      const params = encodeURIComponent(JSON.stringify([{ fromBlock: '0x0', toBlock: '0xc8' }]));
      const rest = await http(`${service.url}/v1/jsonrpc/mainnet/eth_getLogs?params=${params}`);
      assert.equal(rest.status, 400);
      assert.equal(rest.json.error.code, -32602);
    });
  });

  describe('request ids', () => {
    it('echoes X-Request-Id, and makes one when the client sends none (or an unusable one)', async () => {
      const given = await post({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }, { 'x-request-id': 'trace-42' });
      assert.equal(given.headers.get('x-request-id'), 'trace-42');
      const made = await http(`${service.url}/v1/jsonrpc/mainnet/eth_blockNumber`);
      const fresh = /^[0-9a-f]{12}-[0-9a-z]+$/;
      assert.match(made.headers.get('x-request-id') ?? '', fresh);
      const replaced = await http(`${service.url}/v1/jsonrpc/mainnet/eth_blockNumber`, { headers: { 'x-request-id': 'bad id with spaces' } });
      assert.match(replaced.headers.get('x-request-id') ?? '', fresh);
      assert.notEqual(replaced.headers.get('x-request-id'), made.headers.get('x-request-id'));
      const refused = await http(`${service.url}/v1/jsonrpc/nowhere/eth_blockNumber`);
      assert.equal(refused.status, 404);
      assert.ok(refused.headers.get('x-request-id'));
    });
  });

  describe('request metrics', () => {
    it('counts requests by network, channel, method and status, with unknown methods and networks folded', async () => {
      const before = await readMetrics(service.url);
      await post({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
      await post({ jsonrpc: '2.0', id: 1, method: 'made_up_method_12345', params: [] });
      await post([{ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }]);
      await http(`${service.url}/v1/jsonrpc/made-up-network/eth_blockNumber`);
      const after = await readMetrics(service.url);
      const count = (labels: Record<string, string>) =>
        after.value('ethgate_gateway_requests_total', labels) - before.value('ethgate_gateway_requests_total', labels);
      assert.equal(count({ network: 'mainnet', channel: 'http', method: 'eth_chainId', status: '200' }), 1);
      assert.equal(count({ network: 'mainnet', channel: 'http', method: 'other', status: '404' }), 1);
      assert.equal(count({ network: 'mainnet', channel: 'http', method: 'batch', status: '200' }), 1);
      // The network is refused before the method is looked at: method "none".
      assert.equal(count({ network: 'unknown', channel: 'rest-get', method: 'none', status: '404' }), 1);
      const text = await (await fetch(`${service.url}/metrics`)).text();
      assert.ok(!text.includes('made_up_method_12345') && !text.includes('made-up-network'), 'no client-chosen label values');
      const latency = await readMetrics(service.url);
      assert.ok(latency.value('ethgate_upstream_request_duration_seconds_count', { network: 'mainnet', upstream: 'mainnet/0', method: 'eth_chainId' }) >= 1);
    });
  });
});
