/**
 * Thousands of generated hostile inputs (fast-check, seeded: FUZZ_SEED reproduces a run) at every endpoint
 * and channel of both APIs on a running service process: deeply nested bodies and values, random JSON and
 * bytes, JSON-RPC envelopes and batches with hostile params, orders with one field replaced, queries with
 * prototype keys, unknown HTTP methods. Every answer must be a JSON body of the documented shape and no 5xx
 * but an upstream's 502/504; the process must live throughout, /healthz answer 200 at the end, and the
 * order book's log stay exactly as it was.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Wallet } from 'ethers';
import { spawnService, serviceEnv, type ServiceProcess } from '../support/process.js';
import { http, request, type HttpResult } from '../support/http.js';
import { WsClient } from '../support/ws.js';
import { signOrderNative } from '../support/orders.js';
import { TOKENS } from '../support/orderbook.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = 5000;

const RPC_METHODS = [
  'eth_blockNumber', 'eth_getBalance', 'eth_call', 'eth_getLogs', 'eth_getProof', 'web3_sha3', 'eth_createAccessList',
  'eth_simulateV1', 'eth_subscribe', 'eth_unsubscribe', 'eth_sendRawTransaction', 'eth_getBlockByNumber', 'debug_traceCall',
];
const ADDRESS = '0x' + '5a'.repeat(20);
const TX_HASH = '0x' + '7b'.repeat(32);
const API_PATHS = [
  '/orders', '/trades', '/events', '/solvable_orders', '/domain', '/projections', '/openapi.json', '/auction',
  `/account/${ADDRESS}/orders`, `/token/${ADDRESS}/native_price`, `/users/${ADDRESS}/total_surplus`,
  `/transactions/${TX_HASH}/orders`, `/app_data/${TX_HASH}`, '/../v2/trades', '/quote', '/orders/by_uids',
];
const QUERY_KEYS = ['owner', 'sellToken', 'buyToken', 'orderUid', 'offset', 'limit', 'after', 'minValidTo', '__proto__', 'constructor', 'bogus'];
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'PROPFIND', 'PURGE', 'SEARCH', 'LOCK', 'MKCOL', 'COPY'];

/** JSON text nested `levels` deep, of arrays, objects or both. */
const deepText = fc
  .tuple(fc.integer({ min: 40, max: 8000 }), fc.constantFrom('array', 'object', 'mixed'))
  .map(([levels, shape]) => {
    if (shape === 'array') return '['.repeat(levels) + ']'.repeat(levels);
    if (shape === 'object') return '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
    return '[{"a":'.repeat(levels >> 1) + 'null' + '}]'.repeat(levels >> 1);
  });

/** Any value a hostile client may put where a value goes, as JSON text. */
const valueText = fc.oneof(
  { weight: 3, arbitrary: deepText },
  { weight: 3, arbitrary: fc.json({ maxDepth: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom('"__proto__"', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"x":1}}}', '1e999', '-0', '"\\u0000"') },
);

const envelopeText = fc
  .tuple(fc.constantFrom(...RPC_METHODS), valueText, fc.oneof(fc.constant('1'), fc.constant('null'), fc.json({ maxDepth: 2 })))
  .map(([method, params, id]) => `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params.startsWith('[') ? params : `[${params}]`}}`);

const rpcBody = fc.oneof(
  { weight: 4, arbitrary: envelopeText },
  { weight: 2, arbitrary: fc.array(envelopeText, { minLength: 0, maxLength: 8 }).map((items) => `[${items.join(',')}]`) },
  { weight: 2, arbitrary: valueText },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
);

type Input =
  | { channel: 'rest-get'; method: string; params: string }
  | { channel: 'rest-post' | 'network' | 'ws'; body: string }
  | { channel: 'order'; field: string; value: string | undefined }
  | { channel: 'api-body'; method: 'POST' | 'DELETE' | 'PUT'; path: string; body: string }
  | { channel: 'api-query'; path: string; query: [string, string][] }
  | { channel: 'api-method'; method: string; path: string };

function inputs(orderFields: string[]): fc.Arbitrary<Input> {
  return fc.oneof(
    fc.record({ channel: fc.constant('rest-get' as const), method: fc.constantFrom(...RPC_METHODS), params: fc.oneof(valueText.filter((t) => t.length < 4000), fc.string()) }),
    fc.record({ channel: fc.constantFrom('rest-post' as const, 'network' as const, 'ws' as const), body: rpcBody }),
    fc.record({ channel: fc.constant('order' as const), field: fc.constantFrom(...orderFields, 'extra', '__proto__'), value: fc.option(valueText, { nil: undefined }) }),
    fc.record({
      channel: fc.constant('api-body' as const),
      method: fc.constantFrom('POST' as const, 'DELETE' as const, 'PUT' as const),
      path: fc.constantFrom('/orders', `/orders/0x${'ab'.repeat(56)}`, '/orders/0x12', '/quote', '/orders/by_uids', `/app_data/${TX_HASH}`, '/app_data'),
      body: fc.oneof(valueText, fc.string({ unit: 'binary', maxLength: 100 })),
    }),
    fc.record({
      channel: fc.constant('api-query' as const),
      path: fc.constantFrom(...API_PATHS, `/orders/0x${'cd'.repeat(56)}`, `/orders/0x${'cd'.repeat(56)}/status`, '/orders/%ff%fe', '/tokens/0x12/fee', '/account/0x12/orders', '/token/xyz/native_price'),
      query: fc.array(fc.tuple(fc.constantFrom(...QUERY_KEYS), fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('0x' + '11'.repeat(20), '-1', '1e9', '[]'))), { maxLength: 4 }),
    }),
    fc.record({ channel: fc.constant('api-method' as const), method: fc.constantFrom(...HTTP_METHODS), path: fc.constantFrom(...API_PATHS, '/orders/0x12/events') }),
  );
}

/** The documented shape of an answer of the order book (refusals) or of the gateway (everything). */
function assertAnswer(res: HttpResult, part: 'orderbook' | 'gateway', what: string): void {
  assert.ok(res.status < 500 || res.status === 502 || res.status === 504, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
  assert.notEqual(res.json, undefined, `${what}: not JSON: ${res.status} ${res.text.slice(0, 300)}`);
  assert.doesNotMatch(res.text, /\n\s+at |node:internal|\.js:\d+:\d+/, `${what}: a stack trace`);
  if (part === 'orderbook') {
    if (res.status >= 400) assert.deepEqual(Object.keys(res.json).sort(), ['description', 'errorType'], `${what}: ${res.text.slice(0, 300)}`);
  } else {
    const answers = Array.isArray(res.json) ? res.json : [res.json];
    for (const answer of answers) assert.equal(answer?.jsonrpc, '2.0', `${what}: ${res.text.slice(0, 300)}`);
  }
}

describe('hostile input: generated requests at every endpoint and channel', function () {
  this.timeout(120_000);
  let service: ServiceProcess;
  let ws: WsClient;
  let order: Record<string, unknown>;

  before(async () => {
    service = await spawnService(await serviceEnv({ LOG_LEVEL: 'fatal' }));
    const wallet = Wallet.createRandom();
    const domain = (await http(`${service.api}/domain`)).json as { domainSeparator?: string };
    order = signOrderNative(wallet.privateKey, domain.domainSeparator ?? '0x' + '00'.repeat(32), {
      sellToken: TOKENS.TKA,
      buyToken: TOKENS.TKB,
      sellAmount: 10n ** 18n,
      buyAmount: 10n ** 18n,
    }).body as unknown as Record<string, unknown>;
  });
  after(async () => {
    await ws?.close();
    await service?.stop();
  });

  const wsUrl = () => `${service.url.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`;

  async function send(input: Input): Promise<void> {
    const json = { 'content-type': 'application/json' };
    switch (input.channel) {
      case 'rest-get': {
        const res = await http(`${service.url}/v1/jsonrpc/mainnet/${input.method}?params=${encodeURIComponent(input.params)}`);
        return assertAnswer(res, 'gateway', `GET ${input.method}`);
      }
      case 'rest-post':
        return assertAnswer(await request(`${service.url}/v1/jsonrpc/mainnet`, { method: 'POST', headers: json, body: input.body }), 'gateway', 'REST POST');
      case 'network': {
        const res = await request(`${service.url}/`, { method: 'POST', headers: { ...json, host: 'mainnet.localhost' }, body: input.body });
        return assertAnswer(res, 'gateway', '{network_url}/');
      }
      case 'ws': {
        if (!ws?.isOpen) ws = await WsClient.connect(wsUrl());
        ws.sendRaw(input.body);
        const reply = await ws.reply(() => true);
        const answers = Array.isArray(reply) ? reply : [reply];
        for (const answer of answers) assert.equal(answer?.jsonrpc, '2.0', `WebSocket: ${JSON.stringify(reply).slice(0, 300)}`);
        assert.ok(ws.isOpen, 'the WebSocket stays open');
        return;
      }
      case 'order': {
        const body = { ...order, [input.field]: 'VALUE' };
        if (input.value === undefined) delete body[input.field];
        const text = JSON.stringify(body).replace('"VALUE"', input.value ?? 'null');
        return assertAnswer(await request(`${service.api}/orders`, { method: 'POST', headers: json, body: text }), 'orderbook', `order.${input.field}`);
      }
      case 'api-body':
        return assertAnswer(await request(`${service.api}${input.path}`, { method: input.method, headers: json, body: input.body }), 'orderbook', `${input.method} ${input.path}`);
      case 'api-query': {
        const query = input.query.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
        return assertAnswer(await http(`${service.api}${input.path}?${query}`), 'orderbook', `GET ${input.path}?${query}`);
      }
      case 'api-method':
        return assertAnswer(await request(`${service.api}${input.path}`, { method: input.method, headers: json, body: '{}' }), 'orderbook', `${input.method} ${input.path}`);
    }
  }

  it(`answers ${RUNS} of them in the documented shape, stays up and appends nothing (seed ${SEED})`, async () => {
    const eventsBefore = await http(`${service.api}/events?limit=1000`);
    const headBefore = await http(`${service.url}/v1/jsonrpc/mainnet/eth_blockNumber`);
    await fc.assert(
      fc.asyncProperty(inputs(Object.keys(order)), async (input) => {
        await send(input);
        assert.equal(service.child.exitCode, null, 'the service process is alive');
      }),
      { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: 50_000, markInterruptAsFailure: false },
    );
    assert.equal(service.child.exitCode, null, 'the service process is alive');
    assert.equal((await http(`${service.url}/healthz`)).status, 200);
    assert.deepEqual((await http(`${service.api}/events?limit=1000`)).json, eventsBefore.json, 'no event appended');
    assert.deepEqual((await http(`${service.url}/v1/jsonrpc/mainnet/eth_blockNumber`)).json, headBefore.json, 'no block mined');
  });
});
