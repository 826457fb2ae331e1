import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { Redis } from 'ioredis';
import { startTestService, type TestService } from '../support/service.js';
import { http, postJson, postWithHost } from '../support/http.js';
import { AnvilProcess, readMetrics } from '../support/upstreams.js';
import { freePort } from '../../src/devchain/anvil.js';
import { repoPath } from '../../src/shared/paths.js';
import { until } from '../support/wait.js';

const call = (method: string, id: number | string = 1, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params });

/** Opens a WebSocket; resolves the socket, or the HTTP status of a refused upgrade. */
function openWs(url: string): Promise<WebSocket | number> {
  const socket = new WebSocket(url);
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    socket.once('error', reject);
  });
}

function wsCall(socket: WebSocket, body: unknown): Promise<any> {
  return new Promise((resolve) => {
    socket.once('message', (data: Buffer) => resolve(JSON.parse(data.toString())));
    socket.send(JSON.stringify(body));
  });
}

describe('gateway API keys and rate limits', function () {
  this.timeout(60_000);
  const keyA = `key-a-${randomBytes(6).toString('hex')}`;
  const keyB = `key-b-${randomBytes(6).toString('hex')}`;

  describe('keys, in-process limits', () => {
    let service: TestService;
    let network: string;
    before(async () => {
      service = await startTestService({
        API_KEYS: `${keyA},${keyB}`,
        RATE_LIMIT_PER_KEY: '5',
        RATE_LIMIT_WINDOW_SECONDS: '60',
        PORT_MAINNET: '0',
      });
      network = service.networkUrls.mainnet;
    });
    after(() => service?.stop());

    it('refuses requests without a valid key with 401 and a JSON-RPC error', async () => {
      const missing = await http(`${service.url}/v1/jsonrpc/mainnet/eth_blockNumber`);
      assert.equal(missing.status, 401);
      assert.equal(missing.json.jsonrpc, '2.0');
      assert.equal(missing.json.error.code, -32600);
      assert.match(missing.json.error.message, /API key is required/);

      const unknown = await http(`${service.url}/v1/not-a-known-key/jsonrpc/mainnet/eth_blockNumber`);
      assert.equal(unknown.status, 401);
      assert.equal(unknown.json.error.message, 'unknown API key');

      const onNetworkUrl = await postJson(`${network}/`, call('eth_chainId'));
      assert.equal(onNetworkUrl.status, 401);
      assert.equal(await openWs(network.replace('http', 'ws') + '/ws'), 401);
      assert.equal(await openWs(`${network.replace('http', 'ws')}/ws/not-a-known-key`), 401);

      // Service endpoints need no key.
      assert.equal((await http(`${service.url}/healthz`)).status, 200);
      assert.equal((await http(`${service.url}/metrics`)).status, 200);
    });

    it('accepts a key in the path or in X-Api-Key on every channel, and limits calls per key (429, -32005, Retry-After)', async () => {
      const answers = [
        await http(`${service.url}/v1/${keyA}/jsonrpc/mainnet/eth_blockNumber?id=3`),
        await http(`${service.url}/v1/jsonrpc/mainnet/eth_blockNumber`, { headers: { 'x-api-key': keyA } }),
        await postJson(`${network}/${keyA}`, call('eth_chainId')),
        await postWithHost(`${service.url}/${keyA}`, 'mainnet.localhost', call('eth_chainId')),
      ];
      for (const res of answers) assert.equal(res.status, 200, res.text);
      assert.equal(answers[0].json.id, 3);

      // The upgrade is charged like a call (the access layer charges every request): the fifth of key A.
      const socket = await openWs(`${network.replace('http', 'ws')}/ws/${keyA}`);
      assert.ok(socket instanceof WebSocket);
      const limitedFrame = await wsCall(socket, call('eth_chainId', 10));
      assert.equal(limitedFrame.id, 10);
      assert.equal(limitedFrame.error.code, -32005);
      socket.close();

      // Refused before its body is read (the access layer charges first): the id is not known, so null.
      const limited = await postJson(`${network}/${keyA}`, call('eth_chainId', 'x'));
      assert.equal(limited.status, 429);
      assert.equal(limited.json.id, null);
      assert.equal(limited.json.error.code, -32005);
      assert.match(limited.json.error.message, /at most 5 calls per 60 s for this API key/);
      const retryAfter = Number(limited.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(limited.json.error.data.retryAfterSeconds, retryAfter);

      // Key B has its own budget; a batch costs one call per request in it.
      const batch = await postJson(`${network}/${keyB}`, [call('eth_chainId', 1), call('eth_blockNumber', 2)]);
      assert.equal(batch.status, 200);
      const tooBig = await postJson(`${network}/${keyB}`, [1, 2, 3, 4].map((id) => call('eth_chainId', id)));
      assert.equal(tooBig.status, 429);
      assert.equal(tooBig.json.id, null);
    });
  });

  describe('per client address', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ RATE_LIMIT_PER_IP: '3', RATE_LIMIT_WINDOW_SECONDS: '60' });
    });
    after(() => service?.stop());

    it('limits calls per address without keys, and counts refusals in the metrics', async () => {
      const before = await readMetrics(service.url);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await http(`${service.url}/v1/jsonrpc/mainnet/eth_blockNumber`)).status);
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      const after = await readMetrics(service.url);
      // Refused by the access layer before the gateway saw them: counted there, not as gateway requests.
      assert.equal(after.value('ethgate_rate_limited_total', { scope: 'ip' }) - before.value('ethgate_rate_limited_total', { scope: 'ip' }), 2);
    });
  });

  describe('two gateway processes sharing Redis', () => {
    const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const sharedKey = `key-shared-${randomBytes(6).toString('hex')}`;
    let anvil: AnvilProcess;
    let dataDir: string;
    const gateways: { url: string; child: ChildProcess; output: string[] }[] = [];

    before(async function () {
      const probe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await probe.connect();
        probe.disconnect();
      } catch {
        this.skip();
      }
      anvil = await AnvilProcess.start();
      dataDir = mkdtempSync(join(tmpdir(), 'ethgate-redis-limits-'));
      for (let i = 0; i < 2; i++) {
        const port = await freePort();
        const output: string[] = [];
        const child = spawn(process.execPath, [repoPath('dist', 'src', 'wiring', 'main.js')], {
          env: {
            ...process.env,
            PORT: String(port),
            HOST: '127.0.0.1',
            DATA_DIR: join(dataDir, String(i)),
            NETWORKS: 'mainnet',
            UPSTREAM_MAINNET: anvil.url,
            ORDERBOOK: 'off', // gateway instances: the bare anvil has no settlement contract
            REDIS_URL: redisUrl,
            API_KEYS: sharedKey,
            RATE_LIMIT_PER_KEY: '10',
            RATE_LIMIT_WINDOW_SECONDS: '60',
            LOG_LEVEL: 'warn',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child.stdout!.on('data', (c: Buffer) => output.push(c.toString()));
        child.stderr!.on('data', (c: Buffer) => output.push(c.toString()));
        gateways.push({ url: `http://127.0.0.1:${port}`, child, output });
      }
      for (const g of gateways) {
        await until(async () => (await http(`${g.url}/healthz`).catch(() => ({ status: 0 }))).status === 200, `gateway ${g.url} ready: ${g.output.join('')}`, 30_000);
      }
    });
    after(async () => {
      await Promise.all(
        gateways.map(
          (g) =>
            new Promise<void>((resolve) => {
              if (g.child.exitCode !== null) return resolve();
              g.child.once('exit', () => resolve());
              g.child.kill('SIGTERM');
            }),
        ),
      );
      await anvil?.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it('refuses calls beyond the key limit summed over both processes', async () => {
      const [first, second] = gateways;
      for (const g of gateways) assert.equal((await http(`${g.url}/v1/jsonrpc/mainnet/eth_blockNumber`)).status, 401);

      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await http(`${first.url}/v1/${sharedKey}/jsonrpc/mainnet/eth_blockNumber`)).status);
      for (let i = 0; i < 6; i++) {
        statuses.push((await http(`${second.url}/v1/jsonrpc/mainnet/eth_blockNumber`, { headers: { 'x-api-key': sharedKey } })).status);
      }
      // 10 calls per window for the key, wherever they arrive: the last two are refused by the second process.
      assert.deepEqual(statuses, [...Array(10).fill(200), 429, 429]);
    });
  });
});
