/**
 * Several instances: two service processes on one PostgreSQL schema and one external anvil (their shared
 * upstream, with the GPv2 contracts bootstrapped once) serve the same order book. An order created through
 * one is listed, served and solvable on the other; a cancellation through the second shows on the first;
 * concurrent POSTs of one order spread over both give one 201; a trade on chain shows on both, whichever
 * instance leads the indexer, with the amounts of the contract's own Trade log; and the read models of both
 * have the digests an auditor's replay of the shared log computes.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { parseEther, Wallet } from 'ethers';
import { bootstrapDevChain, type DevChain } from '../../src/wiring/gpv2.js';
import { gpv2Domain } from '../../src/orderbook/domain/eip712.js';
import { gasFundedWallet, startTestChain, type TestChain } from '../support/chain.js';
import { signCancellation, signOrder } from '../support/orders.js';
import { testOrderOf } from '../support/orderbook.js';
import { fundTrader, mined, testToken, TestSolver } from '../support/solver.js';
import { serviceEnv, spawnService, type ServiceProcess } from '../support/process.js';
import { databaseUrl, dropSchema } from '../support/postgres.js';
import { http, postJson } from '../support/http.js';
import { until } from '../support/wait.js';
import { replayCli } from '../support/replay.js';
import { Interface, type InterfaceAbi } from 'ethers';
import { gpv2Artifact } from '../../src/contracts/artifacts.js';
import { e18 } from '../support/onchain.js';


describe('order book: two instances on one PostgreSQL', function () {
  this.timeout(180_000);
  let chain: TestChain;
  let dev: DevChain;
  let schema: string;
  const instances: ServiceProcess[] = [];
  let a: ServiceProcess;
  let b: ServiceProcess;

  before(async function () {
    if (!databaseUrl) return this.skip();
    chain = await startTestChain({ chainId: 1 });
    dev = await bootstrapDevChain(chain.rpc);
    schema = `ob_inst_${randomBytes(5).toString('hex')}`;
    const shared = {
      DATABASE_URL: databaseUrl,
      DATABASE_SCHEMA: schema,
      UPSTREAM_MAINNET: chain.anvil.httpUrl,
      SETTLEMENT_CONTRACT: dev.settlement,
      MIN_VALID_TO_SECONDS: '1',
      // TKB and TKC priced for today's quotes; TKA, which the seed-style orders sell, stays unpriced (no fee minimum).
      TOKEN_PRICES: `${dev.tokens.TKB}=1,${dev.tokens.TKC}=1`,
    };
    // Started together: both migrate the same schema at once.
    [a, b] = await Promise.all([spawnService(await serviceEnv(shared)), spawnService(await serviceEnv(shared))]);
    instances.push(a, b);
  });

  after(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    for (const i of instances) rmSync(i.env.DATA_DIR, { recursive: true, force: true });
    await chain?.stop();
    await dropSchema(schema);
  });

  const domain = () => gpv2Domain(dev.chainId, dev.settlement);

  async function trader(tka = e18(100)): Promise<Wallet> {
    const wallet = await gasFundedWallet(chain.provider, chain, parseEther('10'));
    await fundTrader(dev.tokens.TKA, wallet, tka, dev.vaultRelayer);
    return wallet;
  }

  const uids = (orders: { uid: string }[]) => orders.map((o) => o.uid);

  it('serve the same domain', async () => {
    const [da, db] = await Promise.all([http(`${a.api}/domain`), http(`${b.api}/domain`)]);
    assert.deepEqual(da.json, db.json);
    assert.equal(da.json.verifyingContract, dev.settlement);
    assert.equal(da.json.domainSeparator, dev.domainSeparator);
  });

  it('an order created through one is listed, served and solvable on the other; a cancellation through the other shows on the first', async () => {
    const alice = await trader();
    const signed = await signOrder(alice, domain(), { sellToken: dev.tokens.TKA, buyToken: dev.tokens.TKB, sellAmount: e18(1), buyAmount: e18(1) });
    const created = await postJson(`${a.api}/orders`, signed.body);
    assert.equal(created.status, 201, created.text);

    await until(async () => (await http(`${b.api}/orders/${signed.uid}`)).status === 200, 'the order on the second instance', 10_000);
    const onB = await http(`${b.api}/orders/${signed.uid}`);
    assert.equal(onB.json.status, 'open');
    assert.deepEqual({ ...onB.json, availableBalance: null }, { ...(await http(`${a.api}/orders/${signed.uid}`)).json, availableBalance: null });
    assert.deepEqual(uids((await http(`${b.api}/orders?owner=${alice.address}`)).json), [signed.uid]);
    await until(async () => uids((await http(`${b.api}/solvable_orders`)).json).includes(signed.uid), 'solvable on the second instance', 10_000);

    const cancellation = await signCancellation(alice, domain(), signed.uid);
    const cancelled = await http(`${b.api}/orders/${signed.uid}`, {
      method: 'DELETE',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(cancellation),
    });
    assert.equal(cancelled.status, 200, cancelled.text);
    await until(async () => (await http(`${a.api}/orders/${signed.uid}`)).json.status === 'cancelled', 'the cancellation on the first instance', 10_000);
    await until(async () => !uids((await http(`${a.api}/solvable_orders`)).json).includes(signed.uid), 'out of solvable orders on the first', 10_000);
    assert.deepEqual((await http(`${a.api}/orders?owner=${alice.address}`)).json, []);
    const events = (await http(`${a.api}/orders/${signed.uid}/events`)).json;
    assert.deepEqual(events.map((e: { type: string }) => e.type), ['OrderCreated', 'OrderCancelled']);
  });

  it('50 concurrent POSTs of one order spread over both instances: one 201, DuplicatedOrder for the rest', async () => {
    const bob = await trader();
    const signed = await signOrder(bob, domain(), { sellToken: dev.tokens.TKA, buyToken: dev.tokens.TKB, sellAmount: e18(2), buyAmount: e18(1) });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => postJson(`${(i % 2 ? a : b).api}/orders`, signed.body)));
    const statuses = answers.map((r) => (r.status === 201 ? '201' : `${r.status} ${r.json?.errorType}`));
    assert.equal(statuses.filter((s) => s === '201').length, 1, statuses.join(', '));
    assert.equal(statuses.filter((s) => s === '400 DuplicatedOrder').length, 49, statuses.join(', '));
    const events = (await http(`${b.api}/orders/${signed.uid}/events`)).json;
    assert.deepEqual(events.map((e: { type: string }) => e.type), ['OrderCreated']);
  });

  it('a trade on chain shows on both instances', async () => {
    const carol = await trader();
    const signed = await signOrder(carol, domain(), { sellToken: dev.tokens.TKA, buyToken: dev.tokens.TKB, sellAmount: e18(3), buyAmount: e18(2) });
    assert.equal((await postJson(`${b.api}/orders`, signed.body)).status, 201);
    const minter = await trader(0n);
    await mined(testToken(dev.tokens.TKB, minter).mint(dev.settlement, e18(2)));
    const order = testOrderOf(signed.body);
    const receipt = await new TestSolver(chain.provider, dev).settle(
      [{ order, scheme: 'eip712', signature: signed.body.signature }],
      { [dev.tokens.TKA]: order.buyAmount, [dev.tokens.TKB]: order.sellAmount },
    );
    // The contract's own record of the settlement: its Trade log, decoded with the artifact's ABI.
    const settlement = new Interface(gpv2Artifact('GPv2Settlement').abi as InterfaceAbi);
    const logged = receipt.logs.map((log) => settlement.parseLog(log)).find((log) => log?.name === 'Trade')!;
    assert.equal(logged.args.orderUid.toLowerCase(), signed.uid);
    for (const instance of [a, b]) {
      await until(async () => (await http(`${instance.api}/orders/${signed.uid}`)).json.status === 'fulfilled', 'the trade', 20_000);
      // Read models catch up one after the other: the trades one may come a moment after the orders one.
      await until(async () => (await http(`${instance.api}/trades?orderUid=${signed.uid}`)).json.length > 0, 'the trade listed', 20_000);
      const trades = (await http(`${instance.api}/trades?orderUid=${signed.uid}`)).json;
      assert.equal(trades.length, 1);
      assert.equal(trades[0].transactionHash, receipt.hash.toLowerCase());
      assert.equal(trades[0].sellAmount, (logged.args.sellAmount as bigint).toString());
      assert.equal(trades[0].buyAmount, (logged.args.buyAmount as bigint).toString());
      const served = (await http(`${instance.api}/orders/${signed.uid}`)).json;
      assert.equal(served.executedSellAmount, (logged.args.sellAmount as bigint).toString());
      assert.equal(served.executedBuyAmount, (logged.args.buyAmount as bigint).toString());
    }
    // Not the two instances against each other (they read the same tables), but each against the log: the
    // digests an auditor's replay of the shared PostgreSQL log computes, once both have caught up with it.
    const replayed = await replayCli({ DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema });
    for (const instance of [a, b]) {
      await until(async () => {
        const live = (await http(`${instance.api}/projections`)).json.projections;
        return Object.values<{ position: number }>(live).every((p) => p.position >= replayed.position);
      }, 'the read models at the replayed position', 20_000);
      const live = (await http(`${instance.api}/projections`)).json.projections;
      assert.deepEqual(Object.keys(live).sort(), Object.keys(replayed.digests).sort());
      for (const [name, { version: _version, ...digest }] of Object.entries<{ version: number }>(live)) {
        assert.deepEqual(digest, replayed.digests[name], name);
      }
    }
  });

  it("a quote and an app data document from one instance are found by the other (today's API)", async () => {
    const dave = await gasFundedWallet(chain.provider, chain, parseEther('10'));
    await fundTrader(dev.tokens.TKC, dave, e18(10), dev.vaultRelayer);
    const fullAppData = '{"appCode":"two-instances"}';
    const put = await http(`${a.api}/app_data`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ fullAppData }) });
    assert.equal(put.status, 201, put.text);
    assert.deepEqual((await http(`${b.api}/app_data/${put.json}`)).json, { fullAppData });
    const quote = await postJson(`${a.api}/quote`, {
      sellToken: dev.tokens.TKC, buyToken: dev.tokens.TKB, from: dave.address, kind: 'sell', sellAmountAfterFee: e18(5).toString(), validFor: 600, appData: put.json,
    });
    assert.equal(quote.status, 200, quote.text);
    const signed = await signOrder(dave, domain(), {
      sellToken: dev.tokens.TKC, buyToken: dev.tokens.TKB, sellAmount: e18(5), buyAmount: BigInt(quote.json.quote.buyAmount), feeAmount: 0n, appData: put.json, validTo: quote.json.quote.validTo,
    });
    const created = await postJson(`${b.api}/orders`, { ...signed.body, quoteId: quote.json.id });
    assert.equal(created.status, 201, created.text);
    const order = (await http(`${b.api}/orders/${signed.uid}`)).json;
    assert.deepEqual([order.quoteId, order.class, order.fullAppData], [quote.json.id, 'market', fullAppData]);
  });
});
