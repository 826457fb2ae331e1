/**
 * Two instances on one PostgreSQL (in-process services sharing a schema and an external anvil): an order
 * posted to one reaches the event stream and the solver stream of the other, through the store's NOTIFY;
 * and "verify by replay" on either reproduces the live digests. How soon is a figure of
 * `npm run bench -- live` (live.instances.*).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { parseEther, type Wallet } from 'ethers';
import { bootstrapDevChain, type DevChain } from '../../../src/wiring/gpv2.js';
import { gpv2Domain } from '../../../src/orderbook/domain/eip712.js';
import { gasFundedWallet, startTestChain, type TestChain } from '../../support/chain.js';
import { signOrder } from '../../support/orders.js';
import { fundTrader } from '../../support/solver.js';
import { startTestService, type TestService } from '../../support/service.js';
import { databaseUrl, dropSchema } from '../../support/postgres.js';
import { http, postJson } from '../../support/http.js';
import { openSse, type SseClient } from '../../support/sse.js';
import { HANG_GUARD_MS, until } from '../../support/wait.js';
import { e18 } from '../../support/onchain.js';


describe('order book: event streams across two instances on one PostgreSQL', function () {
  this.timeout(180_000);
  let chain: TestChain;
  let dev: DevChain;
  let schema: string;
  let a: TestService;
  let b: TestService;
  const clients: SseClient[] = [];

  before(async function () {
    if (!databaseUrl) return this.skip();
    chain = await startTestChain({ chainId: 1 });
    dev = await bootstrapDevChain(chain.rpc);
    schema = `live_${randomBytes(5).toString('hex')}`;
    const env = {
      ORDERBOOK: 'on',
      DATABASE_URL: databaseUrl,
      DATABASE_SCHEMA: schema,
      UPSTREAM_MAINNET: chain.anvil.httpUrl,
      SETTLEMENT_CONTRACT: dev.settlement,
      MIN_VALID_TO_SECONDS: '1',
    };
    a = await startTestService(env);
    b = await startTestService(env);
  });

  after(async () => {
    for (const c of clients) c.close();
    await a?.stop();
    await b?.stop();
    await chain?.stop();
    await dropSchema(schema);
  });

  async function trader(): Promise<Wallet> {
    const wallet = await gasFundedWallet(chain.provider, chain, parseEther('10'));
    await fundTrader(dev.tokens.TKA, wallet, e18(100), dev.vaultRelayer);
    return wallet;
  }

  it('an order posted to one instance appears on the other instance\'s streams', async () => {
    const events = await openSse(`${b.url}/api/v1/events/stream`);
    const solver = await openSse(`${b.url}/api/v1/solver/stream`);
    clients.push(events, solver);
    // One message per view (solvable_orders, auction) first, in no set order; this test follows solvable_orders.
    await solver.waitFor(2);
    const ofSolvable = () => solver.events.filter((e) => e.event === 'solvable_orders');
    const before = JSON.parse(ofSolvable()[0].data);
    assert.equal(before.id, (await http(`${b.url}/api/v1/solvable_orders`)).headers.get('etag'));

    const alice = await trader();
    const signed = await signOrder(alice, gpv2Domain(dev.chainId, dev.settlement), {
      sellToken: dev.tokens.TKA,
      buyToken: dev.tokens.TKB,
      sellAmount: e18(1),
      buyAmount: e18(1),
    });
    const posted = await postJson(`${a.url}/api/v1/orders`, signed.body);
    assert.equal(posted.status, 201, posted.text);
    const [created] = await events.waitFor(1, HANG_GUARD_MS);
    const item = JSON.parse(created.data);
    assert.equal(item.type, 'OrderCreated');
    assert.equal(item.data.uid, signed.uid);

    // The solver stream on the other instance tells of each new solvable set (the order, then its owner's
    // balance read at the next block), with the ETag GET answers.
    // The view settles once the owner's balance is read; from then on the latest id the stream gave is the
    // ETag GET answers, and sending it as If-None-Match gives 304.
    const latest = () => JSON.parse(ofSolvable().at(-1)!.data);
    await until(
      async () => (await http(`${b.url}/api/v1/solvable_orders`, { headers: { 'if-none-match': latest().id } })).status === 304,
      'the solver stream to give the current ETag',
      5000,
    );
    const change = latest();
    assert.equal(change.view, 'solvable_orders');
    assert.notEqual(change.id, before.id);
    assert.ok(ofSolvable().length >= 2);
    const body = (await http(`${b.url}/api/v1/solvable_orders`)).json;
    assert.deepEqual(body.map((o: { uid: string }) => o.uid), [signed.uid]);
    assert.ok(solver.events.every((e) => e.event === 'solvable_orders' || e.event === 'auction'));
  });

  it('verify by replay: the replayed digests equal the live ones', async () => {
    const res = await http(`${a.url}/api/v1/projections/replay`, { method: 'POST' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.matches, true);
    const live = (await http(`${a.url}/api/v1/projections`)).json;
    assert.deepEqual(Object.keys(res.json.projections).sort(), Object.keys(live.projections).sort());
    for (const [name, comparison] of Object.entries<any>(res.json.projections)) {
      assert.equal(comparison.replay.sha256, live.projections[name].sha256, name);
      assert.equal(comparison.matches, true);
    }
    assert.ok(res.json.events >= 1);
  });
});
