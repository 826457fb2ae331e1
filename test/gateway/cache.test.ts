import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Wallet } from 'ethers';
import { startTestService, type TestService } from '../support/service.js';
import { postWithHost } from '../support/http.js';
import { AnvilProcess, readMetrics, type MetricsReading } from '../support/upstreams.js';
import { until } from '../support/wait.js';

const DEV = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const hex = (n: number) => `0x${n.toString(16)}`;

/** A call on {network_url}/ of `network` (by Host name); throws on an error answer. */
async function call(service: TestService, method: string, params: unknown[], network = 'mainnet'): Promise<any> {
  const res = await postWithHost(`${service.url}/`, `${network}.localhost`, { jsonrpc: '2.0', id: 1, method, params });
  if (res.status !== 200 || res.json.error) throw new Error(`${method}: ${res.status} ${res.text}`);
  return res.json.result;
}

function delta(before: MetricsReading, after: MetricsReading, name: string, labels: Record<string, string>): number {
  return after.value(name, labels) - before.value(name, labels);
}

describe('gateway cache', function () {
  this.timeout(60_000);

  describe('reorganisations', () => {
    let anvil: AnvilProcess;
    let service: TestService;
    beforeEach(async () => {
      anvil = await AnvilProcess.start();
      // A long health-check interval: the test refreshes the gateway's view of the head itself.
      service = await startTestService({ UPSTREAM_MAINNET: anvil.url, CACHE_REORG_DEPTH: '3', HEALTH_CHECK_INTERVAL_MS: '600000', HEAD_POLL_INTERVAL_MS: '600000' });
    });
    afterEach(async () => {
      await service?.stop();
      await anvil?.stop();
    });

    it('never serves a block by number that a reorg within the reorg depth replaced', async () => {
      const pool = service.gateway.network('mainnet').pool;
      const byNumber = (n: number) => call(service, 'eth_getBlockByNumber', [hex(n), false]);
      const upstreamBlocks = { method: 'eth_getBlockByNumber', network: 'mainnet' };

      await anvil.rpc('anvil_mine', ['0x7']);
      const snapshot = await anvil.rpc('evm_snapshot');
      await anvil.rpc('anvil_mine', ['0x3']);
      await pool.checkHealth();
      assert.equal(pool.head, 10);

      const m0 = await readMetrics(service.url);
      const before = new Map<number, any>();
      for (let n = 5; n <= 10; n++) before.set(n, await byNumber(n));
      const m1 = await readMetrics(service.url);
      // head 10, depth 3: blocks up to 7 are final and kept; 8, 9 and 10 may still be replaced.
      assert.equal(delta(m0, m1, 'ethgate_cache_stores_total', upstreamBlocks), 3);

      // A reorg of depth 3: back to block 7, then four new blocks (other timestamps, so other hashes).
      await anvil.rpc('evm_revert', [snapshot]);
      await anvil.rpc('evm_setNextBlockTimestamp', [Number(before.get(10).timestamp) + 1_000]);
      await anvil.rpc('anvil_mine', ['0x4']);

      // The gateway still believes the head is 10 (no health check since): it must not matter.
      for (let n = 5; n <= 10; n++) {
        const served = await byNumber(n);
        assert.deepEqual(served, await anvil.rpc('eth_getBlockByNumber', [hex(n), false]), `block ${n} as the chain has it now`);
        if (n >= 8) assert.notEqual(served.hash, before.get(n).hash, `block ${n} was replaced`);
        else assert.equal(served.hash, before.get(n).hash);
      }
      const m2 = await readMetrics(service.url);
      assert.equal(delta(m1, m2, 'ethgate_cache_hits_total', upstreamBlocks), 3, 'blocks 5..7 from the cache');
      assert.equal(delta(m1, m2, 'ethgate_upstream_calls_total', upstreamBlocks), 3, 'blocks 8..10 from the upstream');
    });

    it('caches a receipt by hash only once its block is final, so a reorg cannot leave a stale one', async () => {
      const pool = service.gateway.network('mainnet').pool;
      await anvil.rpc('anvil_mine', ['0xa']);
      const snapshot = await anvil.rpc('evm_snapshot');
      // Signed once, so that the same transaction (same hash) can be mined again after the reorg.
      const raw = await new Wallet(DEV_KEY).signTransaction({
        to: DEV,
        value: 1n,
        nonce: 0,
        gasLimit: 21_000n,
        maxFeePerGas: 100_000_000_000n,
        maxPriorityFeePerGas: 1n,
        chainId: 1n,
        type: 2,
      });
      const hash = await anvil.rpc('eth_sendRawTransaction', [raw]);
      // anvil answers with the hash before its automine has made the block.
      const mined = () => until(async () => (await anvil.rpc('eth_getTransactionReceipt', [hash])) !== null, 'receipt', 10_000);
      await mined();
      await pool.checkHealth();

      const receipt = await call(service, 'eth_getTransactionReceipt', [hash]);
      assert.equal(receipt.blockNumber, '0xb');
      const tx = await call(service, 'eth_getTransactionByHash', [hash]);
      assert.equal(tx.blockNumber, '0xb');

      // The block of the transaction is replaced by one without it: the gateway says what the chain says.
      await anvil.rpc('evm_revert', [snapshot]);
      await anvil.rpc('anvil_mine', ['0x2']);
      assert.equal(await call(service, 'eth_getTransactionReceipt', [hash]), null);
      assert.equal(await call(service, 'eth_getTransactionByHash', [hash]), null);

      // Mined again and buried under enough blocks: now it is kept, and served without the upstream.
      const again = await anvil.rpc('eth_sendRawTransaction', [raw]);
      assert.equal(again, hash);
      await mined();
      await anvil.rpc('anvil_mine', ['0x5']);
      await pool.checkHealth();
      const m0 = await readMetrics(service.url);
      const first = await call(service, 'eth_getTransactionReceipt', [hash]);
      const second = await call(service, 'eth_getTransactionReceipt', [hash]);
      assert.deepEqual(second, first);
      assert.equal(first.blockNumber, '0xd');
      const m1 = await readMetrics(service.url);
      const receipts = { method: 'eth_getTransactionReceipt', network: 'mainnet' };
      assert.equal(delta(m0, m1, 'ethgate_upstream_calls_total', receipts), 1);
      assert.equal(delta(m0, m1, 'ethgate_cache_hits_total', receipts), 1);
    });

    it('serves deep blocks, chain id and code at a past block from the cache, and never caches null', async () => {
      const pool = service.gateway.network('mainnet').pool;
      await anvil.rpc('anvil_mine', ['0x14']);
      await pool.checkHealth();
      const m0 = await readMetrics(service.url);
      for (let i = 0; i < 5; i++) {
        assert.equal((await call(service, 'eth_getBlockByNumber', ['0x2', true])).number, '0x2');
        assert.equal(await call(service, 'eth_chainId', []), '0x1');
        assert.equal(await call(service, 'eth_getCode', [DEV, '0x3']), '0x');
        assert.equal(await call(service, 'eth_getBlockByNumber', ['0x1000', false]), null);
        await call(service, 'eth_getBlockByNumber', ['latest', false]);
      }
      const m1 = await readMetrics(service.url);
      const upstream = (method: string) => delta(m0, m1, 'ethgate_upstream_calls_total', { method, network: 'mainnet' });
      const hits = (method: string) => delta(m0, m1, 'ethgate_cache_hits_total', { method, network: 'mainnet' });
      assert.equal(upstream('eth_chainId'), 1);
      assert.equal(hits('eth_chainId'), 4);
      assert.equal(upstream('eth_getCode'), 1);
      assert.equal(hits('eth_getCode'), 4);
      // Block 2 once, the missing block 0x1000 (null) and "latest" every time.
      assert.equal(upstream('eth_getBlockByNumber'), 1 + 5 + 5);
      assert.equal(hits('eth_getBlockByNumber'), 4);
    });
  });

  describe('shared through Redis', () => {
    const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const network = `rc${randomBytes(4).toString('hex')}`;
    let redis: Redis;
    let anvil: AnvilProcess;
    let services: TestService[] = [];

    before(async function () {
      redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
      } catch {
        this.skip();
      }
      anvil = await AnvilProcess.start();
      await anvil.rpc('anvil_mine', ['0x100']);
      const env = {
        NETWORKS: network,
        [`CHAIN_ID_${network.toUpperCase()}`]: '1',
        [`UPSTREAM_${network.toUpperCase()}`]: anvil.url,
        REDIS_URL: redisUrl,
        CACHE_REORG_DEPTH: '10',
        ORDERBOOK_NETWORK: network,
      };
      services = [await startTestService(env), await startTestService(env)];
    });
    after(async () => {
      await Promise.all(services.map((s) => s.stop()));
      await anvil?.stop();
      if (redis?.status === 'ready') {
        const keys = await redis.keys(`ethgate:cache:${network}/*`);
        if (keys.length > 0) await redis.del(...keys);
        redis.disconnect();
      }
    });

    it('lets a second gateway instance answer from what the first one fetched', async () => {
      const [first, second] = services;
      const m0 = await readMetrics(first.url);
      const fromFirst = await call(first, 'eth_getBlockByNumber', ['0x20', false], network);
      const fromSecond = await call(second, 'eth_getBlockByNumber', ['0x20', false], network);
      assert.deepEqual(fromSecond, fromFirst);
      const m1 = await readMetrics(first.url);
      const labels = { network, method: 'eth_getBlockByNumber' };
      assert.equal(delta(m0, m1, 'ethgate_upstream_calls_total', labels), 1, 'one upstream call for both instances');
      assert.equal(delta(m0, m1, 'ethgate_cache_hits_total', { ...labels, tier: 'redis' }), 1);
    });
  });

  describe('coalescing', () => {
    let anvil: AnvilProcess;
    let slow: Server & { methods: string[] };
    let service: TestService;
    before(async () => {
      anvil = await AnvilProcess.start();
      slow = await delayingProxy(anvil.url, 300);
      const port = (slow.address() as { port: number }).port;
      service = await startTestService({ UPSTREAM_MAINNET: `http://127.0.0.1:${port}`, HEALTH_CHECK_INTERVAL_MS: '600000' });
    });
    after(async () => {
      await service?.stop();
      await new Promise((r) => slow?.close(r));
      await anvil?.stop();
    });

    it('answers 20 identical reads in flight with one upstream call', async () => {
      const m0 = await readMetrics(service.url);
      const onWire = () => slow.methods.filter((m) => m === 'eth_getBalance').length;
      const wire0 = onWire();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          postWithHost(`${service.url}/`, 'mainnet.localhost', {
            jsonrpc: '2.0',
            id: i,
            method: 'eth_getBalance',
            params: [DEV, 'latest'],
          }),
        ),
      );
      const expected = await anvil.rpc('eth_getBalance', [DEV, 'latest']);
      answers.forEach((res, i) => assert.deepEqual(res.json, { jsonrpc: '2.0', id: i, result: expected }));
      const m1 = await readMetrics(service.url);
      const labels = { network: 'mainnet', method: 'eth_getBalance' };
      assert.equal(onWire() - wire0, 1, 'one eth_getBalance reached the node');
      assert.equal(delta(m0, m1, 'ethgate_upstream_calls_total', labels), 1);
      assert.equal(delta(m0, m1, 'ethgate_coalesced_calls_total', labels), 19);
    });

    it('does not coalesce transactions', async () => {
      const m0 = await readMetrics(service.url);
      const bodies = Array.from({ length: 3 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_sendRawTransaction', params: ['0x01'] }));
      const wire0 = slow.methods.filter((m) => m === 'eth_sendRawTransaction').length;
      await Promise.all(bodies.map((b) => postWithHost(`${service.url}/`, 'mainnet.localhost', b)));
      assert.equal(slow.methods.filter((m) => m === 'eth_sendRawTransaction').length - wire0, 3, 'three reached the node');
      const m1 = await readMetrics(service.url);
      assert.equal(delta(m0, m1, 'ethgate_upstream_calls_total', { network: 'mainnet', method: 'eth_sendRawTransaction' }), 3);
    });
  });
});

/**
 * A slow path to a real anvil (each request held `delayMs`), so that reads are sure to overlap in flight;
 * `methods` lists every JSON-RPC call that went through it (what the node saw on the wire).
 */
async function delayingProxy(target: string, delayMs: number): Promise<Server & { methods: string[] }> {
  const methods: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const parsed = JSON.parse(Buffer.concat(chunks).toString());
        for (const item of Array.isArray(parsed) ? parsed : [parsed]) methods.push(item.method);
      } catch {
        // not JSON: forwarded as it is
      }
      await new Promise((r) => setTimeout(r, delayMs));
      try {
        const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
      } catch {
        // anvil stopped while a request (e.g. the head tracker's poll) was held: as a node that went away
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(server, { methods });
}
