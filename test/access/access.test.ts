/**
 * The access layer in front of both parts, against the service as a process (issue 30): every route (the
 * OpenAPI document walked, the gateway's routes, the explorer, the operator routes, paths nobody serves)
 * is charged to its caller before its body is read, exactly its route's cost; /api answers 429 in CoW's
 * shape; the operator routes need the token (or, without one, a client on loopback, as seen through a
 * trusted nginx); a foreign Host gets 421 (but on the probes, /healthz and /livez, which are never charged);
 * X-Forwarded-For is read only from trusted proxies; IPv6 clients are counted per /64; refused keys are
 * throttled per address; browsers get each part's CORS policy and the security headers; and no log line
 * carries a configured key, token or URL credential.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startServiceProcess, removeDataDir, type ServiceProcess } from '../support/service-process.js';
import { startNginx, type Nginx } from '../support/nginx.js';
import { request, type HttpResult } from '../support/http.js';
import { AnvilProcess } from '../support/upstreams.js';
import { until } from '../support/wait.js';
import { freePort } from '../../src/devchain/anvil.js';
import { openApiDocument } from '../../src/orderbook/api/openapi.js';
import { routeCost } from '../../src/orderbook/api/route-costs.js';

const LIMIT = 5;
const COSTS = { quote: 5, order: 5, list: 5 };
const rpcBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });

/** An address of this machine outside loopback, if it has one. */
function outsideAddress(): string | undefined {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) if (entry.family === 'IPv4' && !entry.internal) return entry.address;
  }
  return undefined;
}

/** A WebSocket upgrade; the status of its refusal, or 101. */
function upgrade(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('open', () => {
      socket.close();
      resolve(101);
    });
    socket.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    socket.once('error', reject);
  });
}

interface Route {
  name: string;
  /** One request of the route from the client `from` (an address the trusted test proxy forwards). */
  send(from: string): Promise<{ status: number; res?: HttpResult }>;
  cost: number;
}

/** A CoW-shaped refusal: exactly {errorType, description}. */
function assertCowRefusal(res: HttpResult, status: number, errorType: string): void {
  assert.equal(res.status, status, res.text);
  assert.deepEqual(Object.keys(res.json ?? {}).sort(), ['description', 'errorType'], res.text);
  assert.equal(res.json.errorType, errorType, res.text);
}

describe('access: limits and credentials on every route (service process)', function () {
  this.timeout(180_000);
  const key = `key-${randomBytes(8).toString('hex')}`;
  /** A key with a small limit of its own (API_KEYS_FILE). */
  const smallKey = `small-${randomBytes(8).toString('hex')}`;
  const token = `operator-${randomBytes(12).toString('hex')}`;
  const natsUser = `natsuser${randomBytes(4).toString('hex')}`;
  const natsPassword = `natspw${randomBytes(8).toString('hex')}`;
  let service: ServiceProcess;
  let networkPort: number;

  before(async () => {
    networkPort = await freePort();
    const closedPort = await freePort();
    const keysFile = join(mkdtempSync(join(tmpdir(), 'ethgate-keys-')), 'keys.json');
    writeFileSync(keysFile, JSON.stringify([{ key: smallKey, label: 'small', rateLimit: 2 }]));
    service = await startServiceProcess({
      env: {
        NETWORKS: 'mainnet',
        ORDERBOOK: 'on',
        LOG_LEVEL: 'debug',
        API_KEYS: key,
        API_KEYS_FILE: keysFile,
        RATE_LIMIT_PER_IP: String(LIMIT),
        RATE_LIMIT_WINDOW_SECONDS: '60',
        // The test itself is the trusted proxy: X-Forwarded-For gives each check a client of its own.
        TRUST_PROXY: '127.0.0.1',
        OPERATOR_TOKEN: token,
        KEY_FAILURES_PER_MINUTE: '3',
        PORT_MAINNET: String(networkPort),
        // NATS with credentials, unreachable: its failures are logged, with the URL they concern.
        NATS_URL: `nats://${natsUser}:${natsPassword}@127.0.0.1:${closedPort}`,
      },
    });
  });
  after(async () => {
    await service?.stop();
    if (service) removeDataDir(service.dataDir);
  });

  const get = (path: string, from: string, headers: Record<string, string> = {}) =>
    request(`${service.url}${path}`, { headers: { 'x-forwarded-for': from, ...headers } });

  /** Every route a client can reach: the OpenAPI document's, the gateway's, the explorer's, the operator's. */
  function routes(): Route[] {
    const doc = openApiDocument() as { paths: Record<string, Record<string, unknown>> };
    const uid = '0x' + 'ab'.repeat(56);
    const fill = (path: string) =>
      path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
        /uid/i.test(name) ? uid : /hash/i.test(name) ? '0x' + 'cd'.repeat(32) : '0x' + '11'.repeat(20),
      );
    const api: Route[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const method of Object.keys(methods)) {
        if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue; // e.g. "parameters"
        const url = fill(path);
        api.push({
          name: `${method.toUpperCase()} ${path}`,
          cost: routeCost(COSTS, method.toUpperCase(), url),
          send: async (from) => {
            const res = await request(`${service.url}${url}`, {
              method: method.toUpperCase(),
              headers: { 'x-forwarded-for': from, ...(method === 'get' || method === 'delete' ? {} : { 'content-type': 'application/json' }) },
              body: method === 'get' ? undefined : '{}',
            });
            return { status: res.status, res };
          },
        });
      }
    }
    assert.ok(api.length >= 25, `the OpenAPI document lists ${api.length} operations`);
    const plain = (name: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}, base = () => service.url): Route => ({
      name,
      cost: 1,
      send: async (from) => {
        const res = await request(`${base()}${path}`, { ...init, headers: { 'x-forwarded-for': from, ...init.headers } });
        return { status: res.status, res };
      },
    });
    const json = { 'content-type': 'application/json' };
    const ws = (name: string, path: string, headers: Record<string, string>): Route => ({
      name,
      cost: 1,
      send: async (from) => ({ status: await upgrade(`${service.url.replace('http', 'ws')}${path}`, { 'x-forwarded-for': from, ...headers }) }),
    });
    return [
      ...api,
      plain('GET /api/v1/openapi.json', '/api/v1/openapi.json'),
      plain('REST GET, key in the path', `/v1/${key}/jsonrpc/mainnet/eth_blockNumber`),
      plain('REST GET, key in X-Api-Key', '/v1/jsonrpc/mainnet/eth_blockNumber', { headers: { 'x-api-key': key } }),
      plain('REST POST', `/v1/${key}/jsonrpc/mainnet`, { method: 'POST', headers: json, body: rpcBody }),
      plain('REST POST with method', `/v1/${key}/jsonrpc/mainnet/eth_chainId`, { method: 'POST', headers: json, body: rpcBody }),
      plain('REST methods', `/v1/${key}/jsonrpc/mainnet/methods`),
      plain('REST without a key (401)', '/v1/jsonrpc/mainnet/eth_blockNumber'),
      plain('{network_url}/ by Host', '/', { method: 'POST', headers: { ...json, host: 'mainnet.localhost', 'x-api-key': key }, body: rpcBody }),
      plain('{network_url}/<key> by Host', `/${key}`, { method: 'POST', headers: { ...json, host: 'mainnet.localhost' }, body: rpcBody }),
      plain('the network listener', `/${key}`, { method: 'POST', headers: json, body: rpcBody }, () => `http://127.0.0.1:${networkPort}`),
      ws('WebSocket by Host', `/ws/${key}`, { host: 'mainnet.localhost' }),
      ws('WebSocket REST', `/v1/${key}/jsonrpc/mainnet/ws`, {}),
      plain('the explorer page', '/', { headers: { accept: 'text/html' } }),
      plain('an explorer file', '/explorer/app.js'),
      plain('the favicon', '/favicon.ico'),
      plain('/metrics without the token (401)', '/metrics'),
      plain('/status without the token (401)', '/status'),
      plain('a path nobody serves', `/nothing-${randomBytes(4).toString('hex')}`),
      plain('an /api path nobody serves', '/api/v1/nothing'),
    ];
  }

  it('charges every route to its caller, exactly its cost, before reading the body; /api answers 429 in CoW shape', async () => {
    const all = routes();
    let client = 0;
    for (const route of all) {
      const from = `198.51.${100 + (client >> 8)}.${client++ & 255}`;
      const statuses: number[] = [];
      let last: HttpResult | undefined;
      // The cost c of a route leaves room for floor(LIMIT / c) requests; the next is refused.
      const allowed = Math.floor(LIMIT / route.cost);
      for (let i = 0; i <= allowed; i++) {
        const { status, res } = await route.send(from);
        statuses.push(status);
        last = res;
      }
      assert.ok(statuses.slice(0, allowed).every((s) => s !== 429), `${route.name}: ${statuses}`);
      assert.equal(statuses[allowed], 429, `${route.name} (cost ${route.cost}): ${statuses}`);
      if (!last) continue; // a refused upgrade: its status is the answer
      assert.ok(Number(last.headers.get('retry-after')) >= 1, `${route.name}: Retry-After`);
      if (route.name.includes('/api/')) {
        assertCowRefusal(last, 429, 'TooManyRequests');
        assert.match(last.json.description, /at most 5 calls per 60 s per client address/);
      } else if (last.json?.jsonrpc) {
        assert.equal(last.json.error.code, -32005, `${route.name}: ${last.text}`);
      }
    }
  });

  it("charges /api to the key's own limit when a key is given (and to the address's)", async () => {
    const statuses: number[] = [];
    let last: HttpResult | undefined;
    // A fresh address for each request: only the key's budget (2) can refuse them.
    for (let i = 0; i < 3; i++) {
      last = await get('/api/v1/version', `198.51.205.${i}`, { 'x-api-key': smallKey });
      statuses.push(last.status);
    }
    assert.deepEqual(statuses, [200, 200, 429]);
    assertCowRefusal(last!, 429, 'TooManyRequests');
    assert.match(last!.json.description, /at most 2 calls per 60 s for this API key/);
    // The same key's budget is spent on the gateway too: one caller, one budget, on every route.
    assert.equal((await get(`/v1/${smallKey}/jsonrpc/mainnet/eth_blockNumber`, '198.51.205.9')).status, 429);
  });

  it('reads X-Forwarded-For only from a trusted proxy: a forged one from any other peer is ignored', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await request(`${service.url}/api/v1/version`, { localAddress: '127.0.0.2', headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
  });

  it('counts an IPv6 client by its /64', async () => {
    for (let i = 1; i <= LIMIT; i++) assert.equal((await get('/api/v1/version', `2001:db8:0:7::${i}`)).status, 200);
    assert.equal((await get('/api/v1/version', '2001:db8:0:7:ffff::1')).status, 429, 'the same /64');
    assert.equal((await get('/api/v1/version', '2001:db8:0:8::1')).status, 200, 'another /64');
  });

  it('throttles refused keys per address: past the allowance even the right key gets 429', async () => {
    const from = '198.51.200.1';
    for (let i = 0; i < 3; i++) {
      const res = await get(`/v1/wrong-key-${i}xxxx/jsonrpc/mainnet/eth_blockNumber`, from);
      assert.equal(res.status, 401, res.text);
      assert.equal(res.json.error.message, 'unknown API key');
    }
    const blocked = await get(`/v1/${key}/jsonrpc/mainnet/eth_blockNumber`, from);
    assert.equal(blocked.status, 429, blocked.text);
    assert.match(blocked.json.error.message, /too many refused API keys/);
    // An unknown key on /api is refused too (keys are optional there, wrong ones are not).
    assertCowRefusal(await get('/api/v1/version', '198.51.200.2', { 'x-api-key': 'not-a-key-at-all' }), 401, 'Unauthorized');
    // Another address is not affected.
    assert.equal((await get(`/v1/${key}/jsonrpc/mainnet/eth_blockNumber`, '198.51.200.3')).status, 200);
  });

  it('operator routes answer 401 without the token, 200 with it; replay has a cooldown', async () => {
    const from = '198.51.201.1';
    const auth = { authorization: `Bearer ${token}` };
    for (const [method, path] of [['GET', '/metrics'], ['GET', '/status'], ['POST', '/api/v1/projections/replay'], ['POST', '/api/v1/projections/replay/']]) {
      for (const headers of [{}, { authorization: 'Bearer wrong-token' }]) {
        // A fresh address each time: wrong tokens count as refused keys.
        const res = await request(`${service.url}${path}`, { method, headers: { 'x-forwarded-for': `198.51.202.${Math.floor(Math.random() * 250)}`, ...(headers as Record<string, string>) } });
        assert.equal(res.status, 401, `${method} ${path}: ${res.text}`);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
        assert.equal(res.headers.get('www-authenticate'), 'Bearer');
        assert.equal(res.headers.get('access-control-allow-origin'), null, 'operator routes send no CORS header');
      }
    }
    const metrics = await get('/metrics', from, auth);
    assert.equal(metrics.status, 200);
    assert.match(metrics.text, /ethgate_orderbook_chain_calls_total\{outcome="sent"\} [1-9]/, "the order book's chain calls go through the budget");
    assert.match(metrics.text, /ethgate_rate_limited_total\{scope="ip"\} [1-9]/);
    const status = await get('/status', from, auth);
    assert.equal(status.status, 200);
    const upstream = status.json.networks.mainnet.upstreams[0];
    assert.equal(upstream.id, 'mainnet-embedded');
    assert.equal(upstream.transport, 'http');

    const replay = await request(`${service.url}/api/v1/projections/replay`, { method: 'POST', headers: { 'x-forwarded-for': from, ...auth } });
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.json.matches, true);
    const again = await request(`${service.url}/api/v1/projections/replay`, { method: 'POST', headers: { 'x-forwarded-for': from, ...auth } });
    assertCowRefusal(again, 429, 'TooManyRequests');
    assert.ok(Number(again.headers.get('retry-after')) >= 1);
    // The operator's own requests are not charged: far more than the limit from one address.
    for (let i = 0; i < LIMIT + 2; i++) assert.equal((await get('/metrics', from, auth)).status, 200);
  });

  it('answers 421 with a JSON body to a Host outside ALLOWED_HOSTS, before routing; the network hosts still work', async () => {
    const from = '198.51.203.1';
    const gateway = await get('/v1/jsonrpc/mainnet/eth_blockNumber', from, { host: 'evil.example' });
    assert.equal(gateway.status, 421, gateway.text);
    assert.equal(gateway.json.error.code, -32600);
    assertCowRefusal(await get('/api/v1/version', from, { host: 'rebind.attacker.test:8080' }), 421, 'MisdirectedRequest');
    assert.equal((await get('/metrics', from, { host: 'evil.example', authorization: `Bearer ${token}` })).status, 421);
    assert.equal(await upgrade(`${service.url.replace('http', 'ws')}/v1/${key}/jsonrpc/mainnet/ws`, { host: 'evil.example', 'x-forwarded-for': from }), 421);
    const network = await request(`${service.url}/${key}`, { method: 'POST', headers: { host: 'mainnet.localhost', 'content-type': 'application/json', 'x-forwarded-for': '198.51.203.2' }, body: rpcBody });
    assert.equal(network.json.result, '0x1');
    assert.equal((await get('/api/v1/version', '198.51.203.3', { host: `localhost:${new URL(service.url).port}` })).status, 200);
    assert.equal((await get('/api/v1/version', '198.51.203.3', { host: '[::1]' })).status, 200);
  });

  it('answers the probes (/healthz, /livez) whatever the Host and charges them to no one, as a load balancer probes by address', async () => {
    const from = '198.51.203.9';
    for (let i = 0; i < LIMIT + 3; i++) {
      for (const host of ['10.1.2.3:8545', 'evil.example']) {
        const live = await get('/livez', from, { host });
        assert.equal(live.status, 200, live.text);
        assert.deepEqual(live.json, { live: true });
        const ready = await get('/healthz', from, { host });
        assert.equal(ready.status, 200, ready.text);
        assert.equal(ready.json.ready, true);
      }
    }
    // The address's budget is whole: the probes spent none of it.
    for (let i = 0; i < LIMIT; i++) assert.equal((await get('/api/v1/version', from)).status, 200);
    assert.equal((await get('/api/v1/version', from)).status, 429);
  });

  it('gives browsers each part its CORS policy and the security headers', async () => {
    const from = '198.51.204.1';
    const preflight = await request(`${service.url}/api/v1/orders`, {
      method: 'OPTIONS',
      headers: { 'x-forwarded-for': from, origin: 'https://swap.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    assert.equal(preflight.status, 200);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    for (const method of ['GET', 'POST', 'DELETE', 'PUT', 'PATCH']) assert.match(preflight.headers.get('access-control-allow-methods')!, new RegExp(method));
    for (const header of ['origin', 'content-type', 'x-auth-token', 'x-appid']) assert.match(preflight.headers.get('access-control-allow-headers')!, new RegExp(header));
    const api = await get('/api/v1/version', from, { origin: 'https://swap.example' });
    assert.equal(api.headers.get('access-control-allow-origin'), '*');
    assert.match(api.headers.get('access-control-expose-headers') ?? '', /Link/, 'a page on another origin can follow the next page');
    for (const res of [api, await get('/', from, { accept: 'text/html' }), await get('/status', from, { authorization: `Bearer ${token}` })]) {
      assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'self'.*frame-ancestors 'none'/);
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    }
    const replayPreflight = await request(`${service.url}/api/v1/projections/replay`, {
      method: 'OPTIONS',
      headers: { 'x-forwarded-for': from, origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(replayPreflight.headers.get('access-control-allow-origin'), null);
    const gatewayAnswer = await get(`/v1/${key}/jsonrpc/mainnet/eth_chainId`, from);
    assert.equal(gatewayAnswer.headers.get('access-control-allow-origin'), '*');
  });

  it('wrote no configured key, token or URL credential in any log line', async () => {
    await until(() => service.output.join('').includes('cannot publish to NATS'), 'the NATS failure (which names its URL) logged');
    await service.stop();
    const log = service.output.join('');
    for (const secret of [key, token, natsUser, natsPassword]) assert.ok(!log.includes(secret), `the log names ${secret}`);
  });
});

describe('access: operator routes without a token, behind nginx (service process)', function () {
  this.timeout(120_000);
  let service: ServiceProcess;
  let trusted: Nginx;
  let untrusted: Nginx;
  const outside = outsideAddress();

  before(async () => {
    service = await startServiceProcess({
      env: { NETWORKS: 'mainnet', ORDERBOOK: 'on', TRUST_PROXY: '127.0.0.1', RATE_LIMIT_PER_IP: String(LIMIT), RATE_LIMIT_WINDOW_SECONDS: '60' },
    });
    trusted = await startNginx(service.url, { forwardedFor: true, listen: '0.0.0.0' });
    // A proxy on loopback the service was not told of (it connects from 127.0.0.5).
    untrusted = await startNginx(service.url, { forwardedFor: true, listen: '0.0.0.0', bindAddress: '127.0.0.5' });
  });
  after(async () => {
    await trusted?.stop();
    await untrusted?.stop();
    await service?.stop();
    if (service) removeDataDir(service.dataDir);
  });

  const operatorRoutes: [string, string][] = [['GET', '/metrics'], ['GET', '/status'], ['POST', '/api/v1/projections/replay']];

  it('refuses a client that is not on loopback, as the trusted nginx forwards it', async function () {
    if (!outside) this.skip();
    const port = new URL(trusted.url).port;
    for (const [method, path] of operatorRoutes) {
      const res = await request(`http://${outside}:${port}${path}`, { method, headers: { host: 'localhost' } });
      assert.equal(res.status, 401, `${method} ${path}: ${res.text}`);
      assert.match(res.text, /loopback/);
    }
  });

  it('refuses what a proxy it does not trust forwards, even from loopback', async () => {
    for (const [method, path] of operatorRoutes) {
      const res = await request(`${untrusted.url}${path}`, { method });
      assert.equal(res.status, 401, `${method} ${path}: ${res.text}`);
    }
  });

  it('answers a loopback client, directly or through the trusted nginx (the embedded default)', async () => {
    for (const base of [service.url, trusted.url]) {
      for (const [method, path] of operatorRoutes.slice(0, 2)) assert.equal((await request(`${base}${path}`, { method })).status, 200, `${base}${path}`);
    }
    const replay = await request(`${trusted.url}/api/v1/projections/replay`, { method: 'POST' });
    assert.equal(replay.status, 200, replay.text);
  });

  it('counts a client behind the trusted nginx by the address nginx saw, whatever X-Forwarded-For it forges', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await request(`${trusted.url}/api/v1/version`, { localAddress: '127.0.0.3', headers: { 'x-forwarded-for': `10.9.8.${i}` } });
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
    // Another client of the same nginx has its own allowance.
    assert.equal((await request(`${trusted.url}/api/v1/version`, { localAddress: '127.0.0.4' })).status, 200);
  });
});

describe('access: hosts, upstream credentials in logs, ORDERBOOK=off (service process)', function () {
  this.timeout(120_000);
  let anvil: AnvilProcess;
  let service: ServiceProcess;
  const password = `upstreamPw${randomBytes(6).toString('hex')}`;
  const providerKey = `providerkey${randomBytes(10).toString('hex')}`;

  before(async () => {
    anvil = await AnvilProcess.start();
    service = await startServiceProcess({
      env: {
        NETWORKS: 'mainnet',
        ORDERBOOK: 'off',
        LOG_LEVEL: 'debug',
        ALLOWED_HOSTS: 'localhost,127.0.0.1,*.example.com',
        UPSTREAM_MAINNET: `http://opsuser:${password}@127.0.0.1:${anvil.port}/?apikey=${providerKey}`,
      },
    });
  });
  after(async () => {
    await service?.stop();
    await anvil?.stop();
    if (service) removeDataDir(service.dataDir);
  });

  it('serves the hosts ALLOWED_HOSTS names, per-network Host routing included, and refuses the rest', async () => {
    const post = (host: string) => request(`${service.url}/`, { method: 'POST', headers: { host, 'content-type': 'application/json' }, body: rpcBody });
    for (const host of ['mainnet.example.com', 'mainnet.example.com:443']) {
      const res = await post(host);
      assert.equal(res.json?.result, '0x1', `${host}: ${res.status} ${res.text}`);
    }
    assert.equal((await post('example.com')).status, 421, 'the bare suffix is not under *.example.com');
    assert.equal((await post('mainnet.localhost')).status, 421, 'ALLOWED_HOSTS replaces the default list');
    assert.equal((await post('mainnet.example.com.evil.test')).status, 421);
    assert.match((await request(`${service.url}/v1/jsonrpc/mainnet/eth_blockNumber`)).json.result, /^0x/);
  });

  it('shows upstream URLs to the operator only without their credentials, and logs none of them', async () => {
    const status = await request(`${service.url}/status`);
    assert.equal(status.status, 200);
    const upstream = status.json.networks.mainnet.upstreams[0];
    assert.equal(upstream.id, 'mainnet-0');
    assert.equal(upstream.transport, 'http');
    assert.ok(!status.text.includes(password) && !status.text.includes(providerKey), status.text);
    await service.stop();
    const log = service.output.join('');
    for (const secret of ['opsuser', password, providerKey]) assert.ok(!log.includes(secret), `the log names ${secret}`);
  });
});
