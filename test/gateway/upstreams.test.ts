import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { startTestService, type TestService } from '../support/service.js';
import { AnvilProcess, readMetrics, type MetricsReading } from '../support/upstreams.js';
import { postWithHost } from '../support/http.js';
import { HANG_GUARD_MS, until } from '../support/wait.js';
import { gatewayDefaults } from '../../src/gateway/config.js';

const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

const balanceOf = (i: number) => ['eth_getBalance', [`0x${i.toString(16).padStart(40, '0')}`, 'latest']] as const;
const calls = (m: MetricsReading, upstream: string, method?: string) =>
  m.value('ethgate_upstream_calls_total', { upstream, ...(method ? { method } : {}) });

/** A signed transfer from dev account #0 on chain 1 (nonce 0), as a client would send it. */
async function signedTransfer(): Promise<string> {
  return new Wallet(DEV_KEY).signTransaction({
    to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    value: 1n,
    nonce: 0,
    gasLimit: 21_000n,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1n,
    chainId: 1n,
    type: 2,
  });
}

/** A service whose mainnet upstreams come from a config file (weights and roles). */
async function serviceWith(
  upstreams: { url: string; weight?: number; role?: 'primary' | 'fallback' }[],
  env: Record<string, string> = {},
): Promise<TestService & { cleanup(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'ethgate-upstreams-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ networks: [{ name: 'mainnet', chainId: 1, upstreams }] }));
  const service = await startTestService({ CONFIG_FILE: file, HEALTH_CHECK_INTERVAL_MS: '100', ...env });
  return Object.assign(service, {
    async cleanup() {
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

describe('gateway upstream pool', function () {
  this.timeout(60_000);
  let a: AnvilProcess;
  let b: AnvilProcess;
  beforeEach(async () => {
    [a, b] = await Promise.all([AnvilProcess.start(), AnvilProcess.start()]);
  });
  afterEach(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('shares reads among healthy primaries by weight (3:1)', async () => {
    const service = await serviceWith([{ url: a.url, weight: 3 }, { url: b.url, weight: 1 }]);
    try {
      const before = await readMetrics(service.url);
      for (let i = 0; i < 40; i++) await rpcViaHost(service.url, 'mainnet.localhost', ...balanceOf(i));
      const after = await readMetrics(service.url);
      assert.equal(calls(after, 'mainnet/0', 'eth_getBalance') - calls(before, 'mainnet/0', 'eth_getBalance'), 30);
      assert.equal(calls(after, 'mainnet/1', 'eth_getBalance') - calls(before, 'mainnet/1', 'eth_getBalance'), 10);
    } finally {
      await service.cleanup();
    }
  });

  it('uses a fallback only while no primary is healthy', async () => {
    const service = await serviceWith([{ url: a.url }, { url: b.url, role: 'fallback' }]);
    try {
      const before = await readMetrics(service.url);
      for (let i = 0; i < 10; i++) await rpcViaHost(service.url, 'mainnet.localhost', ...balanceOf(i));
      const mid = await readMetrics(service.url);
      assert.equal(calls(mid, 'mainnet/0') - calls(before, 'mainnet/0'), 10);
      assert.equal(calls(mid, 'mainnet/1') - calls(before, 'mainnet/1'), 0, 'the fallback idles while the primary is healthy');

      await a.kill();
      const pool = service.gateway.network('mainnet').pool;
      await until(() => !pool.status()[0].healthy, 'primary out', HANG_GUARD_MS);
      for (let i = 0; i < 10; i++) await rpcViaHost(service.url, 'mainnet.localhost', ...balanceOf(i));
      const after = await readMetrics(service.url);
      assert.equal(calls(after, 'mainnet/1') - calls(mid, 'mainnet/1'), 10, 'the fallback serves once the primary is out');
    } finally {
      await service.cleanup();
    }
  });

  it('takes out an upstream that lags behind the best head, and puts it back once it catches up', async () => {
    const service = await serviceWith([{ url: a.url }, { url: b.url }], { MAX_UPSTREAM_LAG_BLOCKS: '5' });
    try {
      const pool = service.gateway.network('mainnet').pool;
      await b.rpc('anvil_mine', ['0x14']);
      await until(() => !pool.status()[0].healthy, 'lagging upstream out', HANG_GUARD_MS);
      assert.match(pool.status()[0].reason ?? '', /lags 20 blocks behind the best head 20/);
      assert.equal(pool.head, 20);
      const before = await readMetrics(service.url);
      for (let i = 0; i < 6; i++) await rpcViaHost(service.url, 'mainnet.localhost', ...balanceOf(i));
      const mid = await readMetrics(service.url);
      assert.equal(calls(mid, 'mainnet/0') - calls(before, 'mainnet/0'), 0, 'no call goes to the lagging upstream');

      await a.rpc('anvil_mine', ['0x12']);
      await until(() => pool.status()[0].healthy, 'caught-up upstream back', HANG_GUARD_MS);
    } finally {
      await service.cleanup();
    }
  });

  it('retries a read answered "block out of range" on an upstream that has the block', async () => {
    // Both stay in rotation (a generous lag limit), but only b has block 0x14.
    const service = await serviceWith([{ url: a.url }, { url: b.url }], { MAX_UPSTREAM_LAG_BLOCKS: '1000' });
    try {
      await b.rpc('anvil_mine', ['0x1e']);
      const expected = await b.rpc('eth_getBalance', ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', '0x14']);
      const before = await readMetrics(service.url);
      for (let i = 0; i < 4; i++) {
        const answer = await rpcViaHost(service.url, 'mainnet.localhost', 'eth_getBalance', [
          '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
          '0x14',
        ]);
        assert.equal(answer, expected);
      }
      const after = await readMetrics(service.url);
      assert.ok(after.value('ethgate_upstream_retries_total', { reason: 'behind' }) - before.value('ethgate_upstream_retries_total', { reason: 'behind' }) >= 1);
    } finally {
      await service.cleanup();
    }
  });

  it('keeps filters on the upstream that created them', async () => {
    const service = await serviceWith([{ url: a.url }, { url: b.url }]);
    try {
      for (let f = 0; f < 3; f++) {
        const id = await rpcViaHost(service.url, 'mainnet.localhost', 'eth_newBlockFilter', []);
        // Created on the first healthy primary (a): a knows the filter, b does not.
        assert.deepEqual(await a.rpc('eth_getFilterChanges', [id]), []);
        await assert.rejects(b.rpc('eth_getFilterChanges', [id]), /filter/i);
        await a.rpc('anvil_mine', ['0x1']);
        // Round robin would send half of these to b, which would answer "filter not found".
        for (let i = 0; i < 6; i++) {
          const changes = await rpcViaHost(service.url, 'mainnet.localhost', 'eth_getFilterChanges', [id]);
          assert.ok(Array.isArray(changes));
        }
      }
    } finally {
      await service.cleanup();
    }
  });

  it('takes out an upstream that serves another chain', async () => {
    const other = await AnvilProcess.start({ chainId: 5 });
    const service = await serviceWith([{ url: other.url }, { url: a.url }]);
    try {
      const status = service.gateway.network('mainnet').pool.status();
      assert.equal(status[0].healthy, false);
      assert.match(status[0].reason ?? '', /serves chain 5, not 1/);
      assert.equal(await rpcViaHost(service.url, 'mainnet.localhost', 'eth_chainId', []), '0x1');
    } finally {
      await service.cleanup();
      await other.stop();
    }
  });

  it('gives up on an upstream that does not answer after UPSTREAM_TIMEOUT_MS, and reads go on elsewhere', async () => {
    // A fake for the one fault a real node does not show on demand: it accepts, reads, never answers.
    const sockets = new Set<Socket>();
    const silent = createTcpServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    const alone = await serviceWith([{ url: silentUrl }], { UPSTREAM_TIMEOUT_MS: '500' });
    const paired = await serviceWith([{ url: silentUrl }, { url: a.url }], { UPSTREAM_TIMEOUT_MS: '500', HEALTH_CHECK_INTERVAL_MS: '600000' });
    try {
      const started = Date.now();
      const answer = await postViaHost(alone.url, 'mainnet.localhost', { jsonrpc: '2.0', id: 5, method: 'eth_blockNumber', params: [] });
      const waited = Date.now() - started;
      assert.equal(answer.status, 502);
      assert.equal(answer.body.id, 5);
      assert.match(answer.body.error.message, /upstream mainnet\/0 timed out/);
      // Given up at the configured deadline: not before it, and not at the default one (ten times as long).
      assert.ok(waited >= 450 && waited < gatewayDefaults().upstreamTimeoutMs, `answered after ${waited} ms`);

      // The silent upstream failed its first health check and is out: reads go to the other one.
      assert.equal(paired.gateway.network('mainnet').pool.status()[0].healthy, false);
      for (let i = 0; i < 4; i++) assert.match(await rpcViaHost(paired.url, 'mainnet.localhost', 'eth_blockNumber', []), /^0x/);
    } finally {
      await alone.cleanup();
      await paired.cleanup();
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  describe('eth_sendRawTransaction', () => {
    it('goes to one upstream only', async () => {
      const service = await serviceWith([{ url: a.url }, { url: b.url }]);
      try {
        const before = await readMetrics(service.url);
        const hash = await rpcViaHost(service.url, 'mainnet.localhost', 'eth_sendRawTransaction', [await signedTransfer()]);
        const seen = [await a.rpc('eth_getTransactionByHash', [hash]), await b.rpc('eth_getTransactionByHash', [hash])];
        assert.equal(seen.filter((tx) => tx !== null).length, 1, 'exactly one upstream has the transaction');
        const after = await readMetrics(service.url);
        assert.equal(
          after.value('ethgate_upstream_calls_total', { method: 'eth_sendRawTransaction' }) -
            before.value('ethgate_upstream_calls_total', { method: 'eth_sendRawTransaction' }),
          1,
        );
      } finally {
        await service.cleanup();
      }
    });

    it('goes to the next upstream when the first could not be reached', async () => {
      // A long health-check interval keeps the dead primary in rotation: the send itself meets the refusal.
      const service = await serviceWith([{ url: a.url }, { url: b.url, role: 'fallback' }], { HEALTH_CHECK_INTERVAL_MS: '600000' });
      try {
        await a.kill();
        await new Promise((r) => setTimeout(r, 200)); // let the pooled keep-alive sockets see the close
        const hash = await rpcViaHost(service.url, 'mainnet.localhost', 'eth_sendRawTransaction', [await signedTransfer()]);
        assert.notEqual(await b.rpc('eth_getTransactionByHash', [hash]), null);
      } finally {
        await service.cleanup();
      }
    });

    it('is not sent again after the connection dropped once the upstream had it', async () => {
      const dropper = await droppingUpstream();
      const port = (dropper.address() as { port: number }).port;
      const service = await serviceWith([{ url: `http://127.0.0.1:${port}` }, { url: b.url, role: 'fallback' }], {
        HEALTH_CHECK_INTERVAL_MS: '600000',
      });
      try {
        const before = await readMetrics(service.url);
        const answer = await postViaHost(service.url, 'mainnet.localhost', {
          jsonrpc: '2.0',
          id: 7,
          method: 'eth_sendRawTransaction',
          params: [await signedTransfer()],
        });
        assert.equal(answer.status, 502);
        assert.equal(answer.body.id, 7);
        assert.equal(answer.body.error.code, -32603);
        assert.match(answer.body.error.message, /dropped the connection/);
        const after = await readMetrics(service.url);
        assert.equal(calls(after, 'mainnet/1', 'eth_sendRawTransaction') - calls(before, 'mainnet/1', 'eth_sendRawTransaction'), 0);
        assert.equal(await b.rpc('eth_getTransactionCount', ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', 'pending']), '0x0');
      } finally {
        await service.cleanup();
        await new Promise((r) => dropper.close(r));
      }
    });
  });
});

/**
 * A fake upstream for the one fault a real node cannot be made to show on demand: it answers the health
 * check like chain 1 at block 0, and drops the connection after reading an eth_sendRawTransaction.
 */
async function droppingUpstream(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const call = JSON.parse(body) as { id: number; method: string };
      if (call.method === 'eth_sendRawTransaction') {
        req.socket.destroy();
        return;
      }
      const result = call.method === 'eth_chainId' ? '0x1' : '0x0';
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function postViaHost(url: string, host: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await postWithHost(`${url}/`, host, body);
  return { status: res.status, body: res.json };
}

/** A call on {network_url}/ (by Host name); throws on an error answer. */
async function rpcViaHost(url: string, host: string, method: string, params: readonly unknown[]): Promise<any> {
  const { status, body } = await postViaHost(url, host, { jsonrpc: '2.0', id: 1, method, params });
  if (status !== 200 || body.error) throw new Error(`${method}: ${status} ${JSON.stringify(body)}`);
  return body.result;
}
