/**
 * What auditors use: an order's events in order (GET /orders/{UID}/events), the global log a page at a time
 * (GET /events), the live read models' digests (GET /projections) which `npm run replay` reproduces from
 * the log, and the OpenAPI document, whose schemas the live answers satisfy.
 */
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { signCancellation, signOrder, type SignedOrderCreation } from '../../support/orders.js';
import { replayCli } from '../../support/replay.js';
import { http } from '../../support/http.js';
import { deleteOrder, get, postOrder, settle, startOrderbookService, TOKENS, type OrderbookHarness } from '../../support/orderbook.js';
import { e18 } from '../../support/onchain.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const { TKA, TKB, TKC } = TOKENS;

interface ApiEvent {
  position: number;
  streamId: string;
  streamVersion: number;
  type: string;
  schemaVersion: number;
  recordedAt: string;
  data: { uid: string } & Record<string, unknown>;
}

describe('order book API: auditors', function () {
  this.timeout(120_000);
  let h: OrderbookHarness;
  let partial: SignedOrderCreation;
  let cancelled: SignedOrderCreation;

  before(async () => {
    h = await startOrderbookService();
    const alice = await h.trader({ [TKA]: e18(100), [TKB]: e18(100) });
    const place = async (params: Parameters<typeof signOrder>[2]) => {
      const signed = await signOrder(alice, h.domain, params);
      assert.equal((await postOrder(h.api, signed.body)).status, 201);
      return signed;
    };
    partial = await place({ sellToken: TKA, buyToken: TKB, sellAmount: e18(10), buyAmount: e18(10), partiallyFillable: true });
    cancelled = await place({ sellToken: TKB, buyToken: TKC, sellAmount: e18(1), buyAmount: 1n });
    for (let i = 0; i < 5; i++) await place({ sellToken: TKA, buyToken: TKC, sellAmount: e18(1), buyAmount: BigInt(i + 1) });
    await settle(h, [{ body: partial.body, executed: e18(4) }]);
    assert.equal((await deleteOrder(h.api, partial.uid, await signCancellation(alice, h.domain, partial.uid))).status, 200);
    assert.equal((await deleteOrder(h.api, cancelled.uid, await signCancellation(alice, h.domain, cancelled.uid))).status, 200);
  });
  after(() => h?.stop());

  it("GET /orders/{UID}/events: the order's history in order", async () => {
    const res = await get(h.api, `/orders/${partial.uid}/events`);
    assert.equal(res.status, 200);
    const events: ApiEvent[] = res.json;
    assert.deepEqual(events.map((e) => e.type), ['OrderCreated', 'TradeRecorded', 'OrderCancelled']);
    assert.deepEqual(events.map((e) => e.streamVersion), [1, 2, 3]);
    assert.ok(events.every((e) => e.streamId === `order-${partial.uid}` && e.schemaVersion === 1 && e.data.uid === partial.uid));
    assert.ok(events[0].position < events[1].position && events[1].position < events[2].position);
    assert.ok(events.every((e) => /Z$/.test(e.recordedAt) && !Number.isNaN(Date.parse(e.recordedAt))));
    assert.equal(events[0].data.sellAmount, e18(10).toString());
    assert.equal(events[1].data.sellAmountBeforeFees, e18(4).toString());
    assert.equal(events[2].data.signingScheme, 'eip712');
  });

  it('GET /events: the whole log a page at a time, positions 1..head without gaps', async () => {
    const head = await h.book.events.head();
    const all: ApiEvent[] = (await get(h.api, '/events')).json;
    assert.equal(all.length, head, 'default limit 1000 covers this log');
    assert.deepEqual(all.map((e) => e.position), Array.from({ length: head }, (_, i) => i + 1));
    const paged: ApiEvent[] = [];
    for (let after = 0; ; ) {
      const page: ApiEvent[] = (await get(h.api, `/events?after=${after}&limit=3`)).json;
      assert.ok(page.length <= 3);
      if (page.length === 0) break;
      paged.push(...page);
      after = page[page.length - 1].position;
    }
    assert.deepEqual(paged, all);
    assert.deepEqual((await get(h.api, `/events?after=${head}`)).json, []);
    assert.deepEqual((await get(h.api, '/events?after=2&limit=1')).json, [all[2]]);
    const byUid = all.filter((e) => e.data.uid === cancelled.uid).map((e) => e.type);
    assert.deepEqual(byUid, ['OrderCreated', 'OrderCancelled']);
  });

  it('GET /projections: every read model at the head, with the digests `npm run replay` computes from the log', async () => {
    const status = (await get(h.api, '/projections')).json;
    const head = await h.book.events.head();
    assert.equal(status.head, head);
    assert.deepEqual(Object.keys(status.projections).sort(), ['orders', 'trades']);
    for (const [name, p] of Object.entries<{ position: number; documents: number; sha256: string; version: number }>(status.projections)) {
      assert.equal(p.position, head, name);
      assert.match(p.sha256, /^[0-9a-f]{64}$/);
      assert.ok(p.version >= 1);
    }
    assert.equal(status.projections.orders.documents, 7);
    assert.equal(status.projections.trades.documents, 1);

    const replayed = await replayCli({ DATA_DIR: h.service.dataDir });
    assert.equal(replayed.events, head);
    assert.equal(replayed.position, head);
    for (const name of Object.keys(status.projections)) {
      const { version: _version, ...live } = status.projections[name];
      assert.deepEqual(replayed.digests[name], live, name);
    }
  });

  it('GET /openapi.json: an OpenAPI 3.1 document of every path, whose schemas the live answers satisfy', async () => {
    const res = await get(h.api, '/openapi.json');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /application\/json/);
    const doc = JSON.parse(res.text);
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(Object.keys(doc.paths).sort(), [
      '/api/v1/account/{owner}/orders',
      '/api/v1/app_data',
      '/api/v1/app_data/{app_data_hash}',
      '/api/v1/auction',
      '/api/v1/domain',
      '/api/v1/events',
      '/api/v1/events/stream',
      '/api/v1/orders',
      '/api/v1/orders/by_uids',
      '/api/v1/orders/{UID}',
      '/api/v1/orders/{UID}/events',
      '/api/v1/orders/{UID}/status',
      '/api/v1/projections',
      '/api/v1/projections/replay',
      '/api/v1/quote',
      '/api/v1/solvable_orders',
      '/api/v1/solver/stream',
      '/api/v1/token/{token}/native_price',
      '/api/v1/tokens/{sellToken}/fee',
      '/api/v1/trades',
      '/api/v1/transactions/{txHash}/orders',
      '/api/v1/users/{address}/total_surplus',
      '/api/v1/version',
      '/api/v2/trades',
    ]);
    // Every $ref points into the document.
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? [];
    for (const ref of refs) {
      const pointer = JSON.parse(`{${ref}}`).$ref as string;
      assert.ok(pointer.startsWith('#/components/schemas/'), pointer);
      assert.ok(doc.components.schemas[pointer.slice('#/components/schemas/'.length)], pointer);
    }

    // The answers of the live service validate against the document's own schemas.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'openapi', components: doc.components });
    const check = (name: string, value: unknown) => {
      const validate = ajv.compile({ $ref: `openapi#/components/schemas/${name}` });
      assert.ok(validate(value), `${name}: ${JSON.stringify(validate.errors)}`);
    };
    const schemaOf = (path: string, method: string, status: number) => doc.paths[path][method].responses[status].content['application/json'].schema;
    assert.deepEqual(schemaOf('/api/v1/orders', 'get', 200), { type: 'array', items: { $ref: '#/components/schemas/Order' } });
    for (const o of (await get(h.api, '/orders?includeInvalidated=true&includeFullyExecuted=true&minValidTo=0')).json) check('Order', o);
    check('Order', (await get(h.api, `/orders/${partial.uid}`)).json);
    for (const t of (await get(h.api, '/trades')).json) check('Trade', t);
    for (const e of (await get(h.api, '/events')).json) check('StoredEvent', e);
    check('Domain', (await get(h.api, '/domain')).json);
    check('ProjectionsStatus', (await get(h.api, '/projections')).json);
    const replay = await http(`${h.api}/projections/replay`, { method: 'POST' });
    assert.equal(replay.status, 200);
    check('ReplayVerification', replay.json);
    assert.equal(replay.json.matches, true);
    check('Error', (await get(h.api, `/orders/0x12`)).json);
    check('OrderCreation', partial.body);
  });
});
