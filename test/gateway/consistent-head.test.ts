/**
 * A consistent head across upstreams at different heights: a leading anvil and a lagging one (an anvil
 * forked from it at an older block with --no-mining, which answers null above its fork block). Clients
 * never see eth_blockNumber or the latest block go backwards, and never get null for a block the network has.
 */
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.js';
import { AnvilProcess, readMetrics } from '../support/upstreams.js';
import { postWithHost } from '../support/http.js';

const hex = (n: number) => `0x${n.toString(16)}`;

async function call(service: TestService, method: string, params: unknown[]): Promise<any> {
  const res = await postWithHost(`${service.url}/`, 'mainnet.localhost', { jsonrpc: '2.0', id: 1, method, params });
  if (res.status !== 200 || res.json.error) throw new Error(`${method}: ${res.status} ${res.text}`);
  return res.json.result;
}

describe('consistent head across a leading and a lagging upstream', function () {
  this.timeout(90_000);
  let leader: AnvilProcess;
  let lagging: AnvilProcess;
  let service: TestService;

  before(async () => {
    leader = await AnvilProcess.start();
    await leader.rpc('anvil_mine', ['0x14']);
    lagging = await AnvilProcess.start({ args: ['--fork-url', leader.url, '--fork-block-number', '10', '--no-mining'] });
    service = await startTestService({
      UPSTREAM_MAINNET: `${leader.url},${lagging.url}`,
      // Both stay in rotation however far apart they are: the gateway must cope, not just take one out.
      MAX_UPSTREAM_LAG_BLOCKS: '100000',
      HEALTH_CHECK_INTERVAL_MS: '200',
      HEAD_POLL_INTERVAL_MS: '100',
    });
  });
  after(async () => {
    await service?.stop();
    await lagging?.stop();
    await leader?.stop();
  });

  it('the lagging node is what the test says: at block 10, null above it', async () => {
    assert.equal(await lagging.rpc('eth_blockNumber'), '0xa');
    assert.equal(await lagging.rpc('eth_getBlockByNumber', ['0xb', false]), null);
    assert.equal((await lagging.rpc('eth_getBlockByNumber', ['0xa', false])).hash, (await leader.rpc('eth_getBlockByNumber', ['0xa', false])).hash);
  });

  it('200 sequential eth_blockNumber never go backwards, while both nodes answer them', async () => {
    const before = await readMetrics(service.url);
    let last = -1;
    for (let i = 0; i < 200; i++) {
      if (i % 20 === 10) await leader.rpc('evm_mine');
      const n = Number(await call(service, 'eth_blockNumber', []));
      assert.ok(n >= last, `call ${i}: ${n} after ${last}`);
      last = n;
    }
    const after = await readMetrics(service.url);
    const served = (upstream: string) =>
      after.value('ethgate_upstream_calls_total', { upstream, method: 'eth_blockNumber' }) -
      before.value('ethgate_upstream_calls_total', { upstream, method: 'eth_blockNumber' });
    assert.ok(served('mainnet/0') > 0 && served('mainnet/1') > 0, 'both nodes were asked (the lagging one answers 10)');
    assert.equal(last, Number(await leader.rpc('eth_blockNumber')));
  });

  it('eth_getBlockByNumber is never null for a block up to the leader\'s head, and latest never goes backwards', async () => {
    const head = Number(await leader.rpc('eth_blockNumber'));
    for (let n = 0; n <= head; n++) {
      const block = await call(service, 'eth_getBlockByNumber', [hex(n), false]);
      assert.notEqual(block, null, `block ${n}`);
      assert.equal(block.hash, (await leader.rpc('eth_getBlockByNumber', [hex(n), false])).hash);
    }
    // Latest, with eth_blockNumber calls and new blocks on the leader in between (the gateway may know a
    // height from an answer before its head tracker has seen the block).
    let last = -1;
    for (let i = 0; i < 60; i++) {
      if (i % 10 === 5) await leader.rpc('evm_mine');
      if (i % 3 === 0) await call(service, 'eth_blockNumber', []);
      const block = await call(service, 'eth_getBlockByNumber', ['latest', false]);
      assert.notEqual(block, null, `latest, call ${i}`);
      assert.ok(Number(block.number) >= last, `latest ${Number(block.number)} after ${last}`);
      last = Number(block.number);
    }
    assert.ok(last >= head && last <= Number(await leader.rpc('eth_blockNumber')), `latest ended at ${last}`);
  });
});
