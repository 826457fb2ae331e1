/**
 * GETLOGS_SPLIT_BLOCKS: an eth_getLogs wider than MAX_LOGS_BLOCK_RANGE is split into sub-ranges, fetched a
 * few at a time, cached below finality and answered in order: exactly what one request to anvil over the
 * whole range returns. Off by default, where the -32602 refusal stays.
 */
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.js';
import { AnvilProcess, readMetrics } from '../support/upstreams.js';
import { DEV_ADDRESSES, prepareChain, probeInterface } from '../support/chain.js';
import { postWithHost } from '../support/http.js';

const hex = (n: number) => `0x${n.toString(16)}`;

function post(service: TestService, body: unknown) {
  return postWithHost(`${service.url}/`, 'mainnet.localhost', body);
}

describe('eth_getLogs splitting (GETLOGS_SPLIT_BLOCKS)', function () {
  this.timeout(120_000);
  let anvil: AnvilProcess;
  let probe: string;
  let head: number;
  let split: TestService;
  let plain: TestService;

  before(async () => {
    anvil = await AnvilProcess.start();
    probe = (await prepareChain(anvil.url)).probe;
    // Logs spread over 5,000 blocks, some at the edges of the 250-block parts. (anvil_mine's cost per block
    // grows with the chain's length: 10,000 blocks took the whole timeout on a slow machine.)
    for (let i = 0; head === undefined || head < 5_000; i++) {
      const data = probeInterface().encodeFunctionData('poke', [BigInt(i)]);
      await anvil.rpc('eth_sendTransaction', [{ from: DEV_ADDRESSES[i % 3], to: probe, data }]);
      await anvil.rpc('anvil_mine', [hex([1, 248, 249, 250, 68, 2][i % 6])]);
      head = Number(await anvil.rpc('eth_blockNumber'));
    }
    split = await startTestService({ UPSTREAM_MAINNET: anvil.url, MAX_LOGS_BLOCK_RANGE: '250', GETLOGS_SPLIT_BLOCKS: '250' });
    plain = await startTestService({ UPSTREAM_MAINNET: anvil.url, MAX_LOGS_BLOCK_RANGE: '250' });
  });
  after(async () => {
    await split?.stop();
    await plain?.stop();
    await anvil?.stop();
  });

  it('returns exactly the logs one request to anvil returns, over 5,000 blocks', async () => {
    for (const filter of [
      { fromBlock: '0x0', toBlock: hex(head), address: probe },
      { fromBlock: '0x0', toBlock: 'latest' },
      { fromBlock: '0x7', toBlock: hex(head - 3), topics: [null, '0x' + DEV_ADDRESSES[1].slice(2).toLowerCase().padStart(64, '0')] },
    ]) {
      const expected = await anvil.rpc('eth_getLogs', [filter]);
      assert.ok(expected.length > 10, `a meaningful comparison: ${expected.length} logs`);
      const res = await post(split, { jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [filter] });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json.result, expected, JSON.stringify(filter));
    }
  });

  it('caches the parts below finality: asked again, only the part at the head goes upstream', async () => {
    const filter = { fromBlock: '0x0', toBlock: hex(head), address: probe };
    await post(split, { jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [filter] });
    const before = await readMetrics(split.url);
    const res = await post(split, { jsonrpc: '2.0', id: 2, method: 'eth_getLogs', params: [filter] });
    const after = await readMetrics(split.url);
    assert.deepEqual(res.json.result, await anvil.rpc('eth_getLogs', [filter]));
    const labels = { network: 'mainnet', method: 'eth_getLogs' };
    const calls = after.value('ethgate_upstream_calls_total', labels) - before.value('ethgate_upstream_calls_total', labels);
    assert.equal(calls, 1, 'one of 21 parts is within the reorg depth of the head');
  });

  it('splits a request of a batch too, leaving the others as they are', async () => {
    const filter = { fromBlock: '0x0', toBlock: hex(head), address: probe };
    const res = await post(split, [
      { jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [filter] },
      { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
    ]);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json[0].result, await anvil.rpc('eth_getLogs', [filter]));
    assert.equal(res.json[1].result, '0x1');
  });

  it('is off by default: the same request is refused with -32602', async () => {
    const res = await post(plain, { jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: hex(head) }] });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, -32602);
  });
});
