/**
 * Issue 29, item 5, against the service as a process: an order may not stay in the book (and in every
 * balance read) until 2106. validTo beyond MAX_LIMIT_ORDER_VALIDITY_SECONDS, or for a market order (priced at
 * its quote) beyond MAX_MARKET_ORDER_VALIDITY_SECONDS, is 400 ExcessiveValidTo in CoW's shape, appends
 * nothing, and the process serves on; an order within the cap goes on to the next check; a presigned one is
 * not capped, as in CoW's order book.
 */
import assert from 'node:assert/strict';
import { Wallet } from 'ethers';
import { http, postJson } from '../support/http.js';
import { TOKENS } from '../support/orderbook.js';
import { orderCreation, orderData, signOrderNative } from '../support/orders.js';
import { assertOrderbookRefusal, assertServing, logHead } from '../support/refusals.js';
import { removeDataDir, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { orderDigest, packOrderUid } from '../../src/orderbook/domain/eip712.js';

const MARKET = 600;
const LIMIT = 7_200;
const now = () => Math.floor(Date.now() / 1000);

describe('hostile: orders valid for ever (issue 29, item 5)', function () {
  this.timeout(120_000);
  let service: ServiceProcess;
  let separator: string;
  const wallet = Wallet.createRandom();

  before(async () => {
    service = await startServiceProcess({
      env: {
        NETWORKS: 'mainnet',
        ORDERBOOK: 'on',
        TOKEN_PRICES: `${TOKENS.TKA}=1,${TOKENS.TKB}=1`,
        MAX_MARKET_ORDER_VALIDITY_SECONDS: String(MARKET),
        MAX_LIMIT_ORDER_VALIDITY_SECONDS: String(LIMIT),
        LOG_LEVEL: 'warn',
      },
    });
    separator = (await http(`${service.url}/api/v1/domain`)).json.domainSeparator;
  });
  after(async () => {
    await service?.stop();
    if (service) removeDataDir(service.dataDir);
  });

  const post = (body: unknown) => postJson(`${service.url}/api/v1/orders`, body);
  const limitOrder = (validTo: number) =>
    // TKC has no price, so no minimal fee applies: only the cap and the balance decide.
    signOrderNative(wallet.privateKey, separator, { sellToken: TOKENS.TKC, buyToken: TOKENS.TKB, sellAmount: 10n ** 18n, buyAmount: 10n ** 18n, validTo }).body;

  it('refuses a limit order valid beyond the cap, 2106 included, and lets one within it through to the next check', async () => {
    const head = await logHead(service.url);
    assertOrderbookRefusal(await post(limitOrder(now() + LIMIT + 120)), 400, 'ExcessiveValidTo', /limit order may be valid until \d+ at most/);
    assertOrderbookRefusal(await post(limitOrder(0xffffffff)), 400, 'ExcessiveValidTo');
    // Within the cap, the unfunded owner's order goes on to the balance check.
    assertOrderbookRefusal(await post(limitOrder(now() + LIMIT - 120)), 400, 'InsufficientBalance');
    assert.equal(await logHead(service.url), head, 'nothing appended');
    await assertServing(service.url, service.child);
  });

  it('caps a market order (at its quote) at the market maximum', async () => {
    const head = await logHead(service.url);
    const quote = await postJson(`${service.url}/api/v1/quote`, {
      sellToken: TOKENS.TKA,
      buyToken: TOKENS.TKB,
      from: wallet.address,
      kind: 'sell',
      sellAmountBeforeFee: (10n ** 18n).toString(),
      validFor: 300,
    });
    assert.equal(quote.status, 200, quote.text);
    const market = (validTo: number) => ({
      ...signOrderNative(wallet.privateKey, separator, {
        sellToken: TOKENS.TKA,
        buyToken: TOKENS.TKB,
        sellAmount: BigInt(quote.json.quote.sellAmount),
        buyAmount: BigInt(quote.json.quote.buyAmount),
        feeAmount: 0n,
        validTo,
      }).body,
      quoteId: quote.json.id,
    });
    assertOrderbookRefusal(await post(market(now() + MARKET + 120)), 400, 'ExcessiveValidTo', /market order/);
    assertOrderbookRefusal(await post(market(now() + MARKET - 120)), 400, 'InsufficientBalance');
    assert.equal(await logHead(service.url), head, 'nothing appended');
  });

  it('does not cap a presigned order, whose signature is a transaction', async () => {
    const head = await logHead(service.url);
    const data = orderData({ sellToken: TOKENS.TKC, buyToken: TOKENS.TKB, sellAmount: 10n ** 18n, buyAmount: 10n ** 18n, validTo: 0xffffffff });
    const res = await post(orderCreation(data, 'presign', wallet.address));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json, packOrderUid(orderDigest(separator, data), wallet.address.toLowerCase(), data.validTo));
    assert.equal(await logHead(service.url), head + 1);
    await assertServing(service.url, service.child);
  });
});
