import assert from 'node:assert/strict';
import { startTestChain, type TestChain } from '../support/chain.js';
import { startTestService, type TestService } from '../support/service.js';
import { bootstrapDevChain, devChainPlan } from '../../src/wiring/gpv2.js';

import { http, postWithHost } from '../support/http.js';
import { WsClient } from '../support/ws.js';
import { TcpRelay } from '../support/upstreams.js';
import { createTestSchema, databaseUrl } from '../support/postgres.js';
import { until } from '../support/wait.js';

describe('service: the gateway serves whatever the order book does', function () {
  this.timeout(120_000);
  let chain: TestChain;
  let service: TestService;

  before(async () => {
    chain = await startTestChain({ chainId: 1 });
  });
  after(async () => {
    await service?.stop();
    await chain?.stop();
  });

  it('starts without a settlement contract, serves every channel, and brings the order book up once it is deployed', async () => {
    const settlement = devChainPlan().settlement.address;
    service = await startTestService({
      NETWORKS: 'mainnet',
      // http only: subscriptions come from the gateway's head tracker.
      UPSTREAM_MAINNET: chain.anvil.httpUrl,
      SETTLEMENT_CONTRACT: settlement,
      INDEXER_START_BLOCK: '0',
      ORDERBOOK: 'on',
    });

    // The order book is down, and says so in its own error shape; why (a start-up error) is for the
    // operator's /status and the log, not for every client.
    const api = await http(`${service.url}/api/v1/solvable_orders`);
    assert.equal(api.status, 503);
    assert.equal(api.json.errorType, 'ServiceUnavailable');
    assert.match(api.json.description, /down/);
    assert.doesNotMatch(api.json.description, /settlement/i);
    const health = await http(`${service.url}/healthz`);
    assert.equal(health.status, 503);
    assert.deepEqual(health.json.down, ['orderbook']);
    assert.equal(health.json.networks.mainnet, true);
    const status = (await http(`${service.url}/status`)).json;
    assert.equal(status.orderbook.state, 'down');
    assert.match(status.orderbook.reason, /settlement/i);

    // Every gateway channel serves meanwhile: REST, by Host name, and WebSocket with a subscription.
    const rest = await http(`${service.url}/v1/jsonrpc/mainnet/eth_blockNumber`);
    assert.match(rest.json.result, /^0x[0-9a-f]+$/, rest.text);
    const byHost = await postWithHost(service.url, 'mainnet.localhost', { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
    assert.equal(byHost.json.result, '0x1');
    const ws = await WsClient.connect(`${service.url.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`);
    try {
      const sub = await ws.call('eth_subscribe', ['newHeads']);
      assert.equal(typeof sub.result, 'string');
      await chain.send('evm_mine');
      const head = await ws.notification(sub.result);
      assert.equal(typeof head.params.result.number, 'string');
    } finally {
      await ws.close();
    }

    // The cause is fixed: the contracts appear at the address; the order book comes up without a restart.
    const dev = await bootstrapDevChain(chain.rpc);
    assert.equal(dev.settlement, settlement);
    await until(async () => (await http(`${service.url}/status`)).json.orderbook.state === 'up', 'order book up', 60_000);
    const up = await http(`${service.url}/api/v1/solvable_orders`);
    assert.equal(up.status, 200);
    await until(async () => (await http(`${service.url}/healthz`)).status === 200, 'healthz 200', 30_000);
    const after = (await http(`${service.url}/status`)).json.orderbook;
    assert.equal(after.role, 'leader');
    assert.ok(service.orderbook, 'the running book is reachable from the service');
  });

  it('starts with the database unreachable and brings the order book up once it answers', async function () {
    if (!databaseUrl) this.skip();
    await service?.stop();
    const schema = await createTestSchema('sup');
    // PostgreSQL behind a relay that is down at first: the database is unreachable, then comes back.
    const target = new URL(databaseUrl!);
    const relay = await TcpRelay.start(Number(target.port || 5432), target.hostname);
    await relay.kill();
    const viaRelay = new URL(databaseUrl!);
    viaRelay.hostname = '127.0.0.1';
    viaRelay.port = String(relay.port);
    try {
      service = await startTestService({
        NETWORKS: 'mainnet',
        UPSTREAM_MAINNET: chain.anvil.httpUrl,
        SETTLEMENT_CONTRACT: devChainPlan().settlement.address,
        INDEXER_START_BLOCK: '0',
        ORDERBOOK: 'on',
        DATABASE_URL: viaRelay.toString(),
        DATABASE_SCHEMA: schema.schema,
      });
      const api = await http(`${service.url}/api/v1/solvable_orders`);
      assert.equal(api.status, 503);
      assert.equal(api.json.errorType, 'ServiceUnavailable');
      assert.doesNotMatch(api.json.description, /ECONNREFUSED|127\.0\.0\.1/i, 'the database error is for the operator only');
      assert.match((await http(`${service.url}/status`)).json.orderbook.reason, /ECONNREFUSED|connect/i);
      assert.equal((await http(`${service.url}/v1/jsonrpc/mainnet/eth_blockNumber`)).status, 200);
      assert.deepEqual((await http(`${service.url}/healthz`)).json.down, ['orderbook']);

      await relay.revive();
      await until(async () => (await http(`${service.url}/status`)).json.orderbook.state === 'up', 'order book up', 60_000);
      assert.equal((await http(`${service.url}/api/v1/solvable_orders`)).status, 200);
    } finally {
      await service?.stop();
      service = undefined as unknown as TestService;
      await relay.kill();
      await schema.drop();
    }
  });
});

