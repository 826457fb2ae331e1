import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.js';
import { http, postWithHost } from '../support/http.js';

describe('gateway smoke', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service?.stop());

  it('relays eth_chainId of the embedded mainnet chain through the REST channel', async () => {
    const res = await http(`${service.url}/v1/jsonrpc/mainnet/eth_blockNumber?id=5`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { jsonrpc: '2.0', id: 5, result: '0x0' });
  });

  it('answers POST / by Host name with the embedded chain id 1', async () => {
    const res = await postWithHost(`${service.url}/`, 'mainnet.localhost', {
      jsonrpc: '2.0',
      id: 'a',
      method: 'eth_chainId',
      params: [],
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { jsonrpc: '2.0', id: 'a', result: '0x1' });
  });

  it('reports ready on /healthz', async () => {
    const res = await http(`${service.url}/healthz`);
    assert.equal(res.status, 200);
    assert.equal(res.json.ready, true);
  });
});
