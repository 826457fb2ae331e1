/**
 * What a client can make the gateway read from its upstreams, and how a provider's rate limit is taken
 * (issue 29, item 6), against the service as a process in front of a real anvil: an answer larger than
 * MAX_UPSTREAM_ANSWER_BYTES fails with 502 naming the limit, over HTTP and WebSocket, however often a client
 * asks, without the upstream being taken out; a provider answering HTTP 429 or a -32005 "rate limited"
 * error is busy: calls go to the other upstream, the busy one is left alone for its backoff and stays in
 * rotation; with no other upstream the client gets 503. The rate-limited providers are fakes: anvil has no
 * rate limit to hit.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Wallet } from 'ethers';
import { spawnService, serviceEnv, type ServiceProcess } from '../support/process.js';
import { http, request } from '../support/http.js';
import { AnvilProcess } from '../support/upstreams.js';
import { WsClient } from '../support/ws.js';

const MAX_ANSWER = 65_536;
/** Contract-creation code that returns `bytes` zero bytes: eth_call of it answers that many bytes. */
const returning = (bytes: number) => '0x62' + bytes.toString(16).padStart(6, '0') + '6000f3';

/** A provider over its rate limit: counts the calls it gets, answers each with `answer`. */
async function limitedProvider(answer: (id: unknown) => { status: number; headers: Record<string, string>; body: string }) {
  const calls: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString());
      calls.push(call.method);
      const { status, headers, body } = answer(call.id);
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { calls, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe('hostile: upstream answers and rate limits', function () {
  this.timeout(120_000);
  let anvil: AnvilProcess;
  let service: ServiceProcess;
  let http429: Awaited<ReturnType<typeof limitedProvider>>;
  let rpc32005: Awaited<ReturnType<typeof limitedProvider>>;

  /** A call on the network's {network_url} (chosen by Host), where every relayed method is taken. */
  const call = (network: string, method: string, params: unknown[]) =>
    request(`${service.url}/`, {
      method: 'POST',
      headers: { host: `${network}.localhost`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
    });
  const upstreams = async (network: string) => (await http(`${service.url}/status`)).json.networks[network].upstreams as { id: string; state: string }[];

  before(async () => {
    // Contract creation may return more than 24 KiB here, so that an eth_call answers as much as it is asked.
    anvil = await AnvilProcess.start({ args: ['--disable-code-size-limit'] });
    http429 = await limitedProvider(() => ({ status: 429, headers: { 'retry-after': '30' }, body: 'Too Many Requests' }));
    rpc32005 = await limitedProvider((id) => ({
      status: 200,
      headers: {},
      body: JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32005, message: 'project ID request rate exceeded: rate limit' } }),
    }));
    service = await spawnService(
      await serviceEnv({
        ORDERBOOK: 'off',
        NETWORKS: 'big,bigws,limited,ratelimited,onlybusy',
        UPSTREAM_BIG: anvil.url,
        UPSTREAM_BIGWS: anvil.url.replace('http', 'ws'),
        UPSTREAM_LIMITED: `${http429.url},${anvil.url}`,
        UPSTREAM_RATELIMITED: `${rpc32005.url},${anvil.url}`,
        UPSTREAM_ONLYBUSY: http429.url,
        ...Object.fromEntries(['BIG', 'BIGWS', 'LIMITED', 'RATELIMITED', 'ONLYBUSY'].map((n) => [`CHAIN_ID_${n}`, '1'])),
        MAX_UPSTREAM_ANSWER_BYTES: String(MAX_ANSWER),
        UPSTREAM_BATCH_CALLS: '1',
      }),
    );
  });
  after(async () => {
    await service?.stop();
    await anvil?.stop();
    http429?.close();
    rpc32005?.close();
  });

  for (const network of ['big', 'bigws']) {
    it(`${network}: an answer over MAX_UPSTREAM_ANSWER_BYTES is a 502 naming the limit, and the upstream stays in`, async () => {
      const small = await call(network, 'eth_call', [{ data: returning(16) }, 'latest']);
      assert.equal(small.json.result, '0x' + '00'.repeat(16), small.text);
      // More failures than the error window needs to take an upstream out, were they counted.
      for (let i = 0; i < 15; i++) {
        const big = await call(network, 'eth_call', [{ data: returning(MAX_ANSWER + i) }, 'latest']);
        assert.equal(big.status, 502, big.text.slice(0, 300));
        assert.equal(big.json.error.code, -32603);
        assert.match(big.json.error.message, new RegExp(`more than ${MAX_ANSWER} bytes \\(MAX_UPSTREAM_ANSWER_BYTES\\); ask for less`));
      }
      assert.deepEqual((await upstreams(network)).map((u) => u.state), ['in']);
      assert.equal((await http(`${service.url}/healthz`)).json.networks[network], true);
      const again = await call(network, 'eth_call', [{ data: returning(32) }, 'latest']);
      assert.equal(again.json.result, '0x' + '00'.repeat(32), again.text);
    });
  }

  it('a WebSocket client asking for an oversized answer gets the same clear error, and its connection serves on', async () => {
    const ws = await WsClient.connect(`${service.url.replace('http', 'ws')}/v1/jsonrpc/big/ws`);
    try {
      const big = await ws.call('eth_call', [{ data: returning(MAX_ANSWER * 2) }, 'latest']);
      assert.equal(big.error?.code, -32603, JSON.stringify(big).slice(0, 300));
      assert.match(big.error.message, /MAX_UPSTREAM_ANSWER_BYTES/);
      assert.equal((await ws.call('eth_chainId')).result, '0x1');
    } finally {
      await ws.close();
    }
  });

  for (const [network, provider, how] of [
    ['limited', () => http429, 'HTTP 429 with Retry-After'],
    ['ratelimited', () => rpc32005, 'a -32005 rate-limit error'],
  ] as const) {
    it(`${network}: a provider answering ${how} is tried last for its backoff, not taken out, and clients get the other's answers`, async () => {
      const fake = provider();
      const before = fake.calls.filter((m) => m === 'eth_getBalance').length;
      for (let i = 0; i < 40; i++) {
        const res = await call(network, 'eth_getBalance', [Wallet.createRandom().address, 'latest']);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.result, '0x0', res.text);
      }
      const sent = fake.calls.filter((m) => m === 'eth_getBalance').length - before;
      assert.ok(sent <= 1, `the busy provider got ${sent} of the 40 calls`);
      assert.deepEqual((await upstreams(network)).map((u) => u.state), ['in', 'in']);
    });
  }

  it('answers 503 when every upstream of the network is busy', async () => {
    const res = await call('onlybusy', 'eth_getBalance', [Wallet.createRandom().address, 'latest']);
    assert.equal(res.status, 503, res.text);
    assert.equal(res.json.error.code, -32603);
    assert.match(res.json.error.message, /is busy \(HTTP 429\)/);
    assert.doesNotMatch(res.json.error.message, /127\.0\.0\.1/);
    assert.deepEqual((await upstreams('onlybusy')).map((u) => u.state), ['in']);
    assert.equal(service.child.exitCode, null, 'the service is alive');
  });
});
