/**
 * Issue 29, item 2, against the service as a process (its own anvil, which the test funds traders on):
 * quotes and fee requests cost the log nothing and the quote store stays within QUOTE_MAX_LIVE. A flood of
 * POST /api/v1/quote appends nothing; the oldest quotes beyond the bound are gone (an order naming one is
 * QuoteNotFound, and appends nothing either), the newest still places an order, which carries the quote's
 * figures in its OrderCreated event. Thousands of fee requests append nothing; bad ones are refused in
 * CoW's shape; the process serves throughout.
 */
import assert from 'node:assert/strict';
import { toBeHex } from 'ethers';
import { bootstrapDevChain, type DevChain } from '../../src/wiring/gpv2.js';
import { gpv2Domain } from '../../src/orderbook/domain/eip712.js';
import { gasFundedWallet, startTestChain, type TestChain } from '../support/chain.js';
import { externalChainEnv } from '../support/external-market.js';
import { http, postJson } from '../support/http.js';
import { e18, signed } from '../support/onchain.js';
import { assertOrderbookRefusal, assertServing, logHead } from '../support/refusals.js';
import { removeDataDir, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { fundTrader } from '../support/solver.js';

const MAX_LIVE = 5;

describe('hostile: quotes and fee requests (issue 29, item 2)', function () {
  this.timeout(180_000);
  let chain: TestChain;
  let dev: DevChain;
  let service: ServiceProcess;

  before(async () => {
    chain = await startTestChain({ chainId: 1 });
    dev = await bootstrapDevChain(chain.rpc);
    service = await startServiceProcess({
      env: {
        ...externalChainEnv(chain, dev),
        TOKEN_PRICES: `${dev.tokens.TKA}=1,${dev.tokens.TKB}=1`,
        QUOTE_MAX_LIVE: String(MAX_LIVE),
        LOG_LEVEL: 'warn',
      },
    });
  });
  after(async () => {
    await service?.stop();
    if (service) removeDataDir(service.dataDir);
    await chain?.stop();
  });

  const quoteBody = (from: string) => ({
    sellToken: dev.tokens.TKA,
    buyToken: dev.tokens.TKB,
    from,
    kind: 'sell',
    sellAmountBeforeFee: e18(1).toString(),
    validFor: 1800,
  });

  it('a flood of quotes appends nothing, keeps the newest QUOTE_MAX_LIVE, and an order names one of them', async () => {
    const trader = await gasFundedWallet(chain.provider, chain);
    await fundTrader(dev.tokens.TKA, trader, e18(10), dev.vaultRelayer);
    const head = await logHead(service.url);

    const ids: number[] = [];
    let last: any;
    for (let i = 0; i < 40; i++) {
      const from = i === 39 ? trader.address : toBeHex(0x7000 + i, 20);
      const res = await postJson(`${service.url}/api/v1/quote`, quoteBody(from));
      assert.equal(res.status, 200, res.text);
      assert.ok(Number.isSafeInteger(res.json.id), 'the quote id is an integer on the wire');
      ids.push(res.json.id);
      last = res.json;
    }
    assert.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]), 'ids rise');
    assert.equal(await logHead(service.url), head, 'no quote is an event');

    const domain = gpv2Domain(dev.chainId, dev.settlement);
    const order = (quoteId: number) =>
      signed(trader, domain, {
        sellToken: dev.tokens.TKA,
        buyToken: dev.tokens.TKB,
        sellAmount: BigInt(last.quote.sellAmount),
        buyAmount: BigInt(last.quote.buyAmount),
        feeAmount: 0n,
        validTo: last.quote.validTo,
        appData: '0x' + quoteId.toString(16).padStart(64, '0'),
      }).then((placed) => ({ ...placed.body, quoteId }));

    // The oldest are gone: the store holds the newest MAX_LIVE only.
    const evicted = await postJson(`${service.url}/api/v1/orders`, await order(ids[ids.length - MAX_LIVE - 1]));
    assertOrderbookRefusal(evicted, 400, 'QuoteNotFound');
    assert.equal(await logHead(service.url), head, 'a refused order appends nothing');

    const kept = await postJson(`${service.url}/api/v1/orders`, await order(last.id));
    assert.equal(kept.status, 201, kept.text);
    const stream = (await http(`${service.url}/api/v1/orders/${kept.json}/events`)).json as { type: string; data: any }[];
    assert.equal(stream[0].type, 'OrderCreated');
    assert.equal(stream[0].data.quoteId, last.id);
    assert.deepEqual(
      [stream[0].data.quote.sellAmount, stream[0].data.quote.buyAmount, stream[0].data.quote.feeAmount, stream[0].data.quote.gasPrice],
      [last.quote.sellAmount, last.quote.buyAmount, last.quote.feeAmount, last.quote.gasPrice],
      "the order carries the figures of the quote it used",
    );
    assert.equal(await logHead(service.url), head + 1, 'the order, and only it, is appended');
    await assertServing(service.url, service.child);
  });

  it('thousands of fee requests append nothing; malformed and unpriced tokens are refused in the documented shape', async () => {
    const head = await logHead(service.url);
    let sent = 0;
    const client = async () => {
      while (sent < 3_000) {
        sent++;
        const res = await http(`${service.url}/api/v1/tokens/${dev.tokens.TKA}/fee`);
        assert.equal(res.status, 200, res.text);
        assert.match(res.json.minimalFee, /^[0-9]+$/);
      }
    };
    await Promise.all(Array.from({ length: 16 }, client));
    assertOrderbookRefusal(await http(`${service.url}/api/v1/tokens/0x1234/fee`), 400, 'InvalidOrderData');
    assertOrderbookRefusal(await http(`${service.url}/api/v1/tokens/${'0x' + '99'.repeat(20)}/fee`), 404, 'NotFound');
    assert.equal(await logHead(service.url), head, 'fee requests append nothing');
    await assertServing(service.url, service.child);
  });
});
