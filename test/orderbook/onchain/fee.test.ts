/**
 * Fees from the chain: GET /api/v1/tokens/{sellToken}/fee is ceil(gas price × GAS_PER_TRADE ÷ price) with
 * the price from TOKEN_PRICES (native-token wei per base unit of the token), quotes expire after
 * FEE_QUOTE_TTL_SECONDS, and an order paying less than the lowest unexpired quote is InsufficientFee.
 */
import assert from 'node:assert/strict';
import { Contract, type InterfaceAbi } from 'ethers';
import { gpv2Artifact } from '../../../src/contracts/artifacts.js';
import { devChainPlan } from '../../../src/wiring/gpv2.js';
import type { FeeInformation } from '../../../src/generated/orderbook/fee-information.js';
import { fundTrader } from '../../support/solver.js';
import { DEV_TOKEN_ADDRESSES as T, signed, startOnchainBook, type OnchainBook } from '../../support/onchain.js';

const GAS_PER_TRADE = 150_000n;
const TTL_SECONDS = 4;
const FEE_RATIO_BPS = 10;

describe('order book on chain: fees and the domain', function () {
  this.timeout(120_000);
  let book: OnchainBook;

  before(async () => {
    book = await startOnchainBook({
      // TKA: 1 wei per base unit; TKB: 2.5 wei per base unit (a fraction); TKC (6 decimals): 1 ETH per TKC.
      TOKEN_PRICES: `${T.TKA}=1,${T.TKB.toUpperCase().replace('0X', '0x')}=2.5,${T.TKC}=1000000000000`,
      GAS_PER_TRADE: String(GAS_PER_TRADE),
      FEE_QUOTE_TTL_SECONDS: String(TTL_SECONDS),
      FEE_RATIO_BPS: String(FEE_RATIO_BPS),
    });
  });
  after(() => book?.stop());

  const gasPrice = async () => BigInt(await book.control('eth_gasPrice'));
  const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

  async function quote(token: string): Promise<FeeInformation> {
    const res = await book.get(`/tokens/${token}/fee`);
    assert.equal(res.status, 200, res.text);
    return res.json as FeeInformation;
  }

  it('quotes gas price × gas per trade ÷ token price, valid for FEE_QUOTE_TTL_SECONDS', async () => {
    const price = await gasPrice();
    const started = Date.now();
    const a = await quote(T.TKA);
    const b = await quote(T.TKB);
    const ended = Date.now();
    assert.equal(await gasPrice(), price, 'no block in between: one gas price');
    assert.equal(a.minimalFee, (price * GAS_PER_TRADE).toString());
    assert.equal(b.minimalFee, ceilDiv(price * GAS_PER_TRADE * 10n, 25n).toString());
    assert.equal(a.feeRatio, FEE_RATIO_BPS);
    const expires = Date.parse(a.expirationDate);
    assert.ok(expires >= started + TTL_SECONDS * 1000 - 1000 && expires <= ended + TTL_SECONDS * 1000 + 1000, a.expirationDate);
    assert.match(a.expirationDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // A higher gas price gives a higher fee.
    await book.control('anvil_setNextBlockBaseFeePerGas', ['0x' + (price * 10n).toString(16)]);
    await book.control('evm_mine');
    const higher = await quote(T.TKA);
    assert.equal(higher.minimalFee, ((await gasPrice()) * GAS_PER_TRADE).toString());
    assert.ok(BigInt(higher.minimalFee) > BigInt(a.minimalFee));
  });

  it('is 404 NotFound for a token without a price, 400 for a path that is not an address', async () => {
    // A contract without a price (the settlement itself) and an address with nothing at it.
    for (const token of [book.settlement, '0x' + '42'.repeat(20)]) {
      const res = await book.get(`/tokens/${token}/fee`);
      assert.equal(res.status, 404);
      assert.equal(res.json.errorType, 'NotFound');
    }
    const bad = await book.get('/tokens/0x1234/fee');
    assert.equal(bad.status, 400);
    assert.equal(typeof bad.json.description, 'string');
  });

  it('refuses an order whose fee is below the lowest unexpired quote (InsufficientFee); the quote then expires', async () => {
    // TKC, which no other test quoted: its lowest unexpired quote is one of this test's.
    const trader = await book.trader();
    await fundTrader(T.TKC, trader, 10n ** 12n, book.vaultRelayer);
    // A small sell amount (0.1 TKC), so that the fee ratio (0.1%) stays below the quotes.
    const sellAmount = 10n ** 5n;
    let n = 0;
    const place = async (feeAmount: bigint, amount = sellAmount) => {
      const order = await signed(trader, book.domain, {
        sellToken: T.TKC,
        buyToken: T.TKB,
        sellAmount: amount,
        buyAmount: 1n,
        feeAmount,
        appData: '0x' + (++n).toString(16).padStart(64, '0'),
      });
      return book.post('/orders', order.body);
    };

    // A low quote, then the gas price goes up tenfold: the low quote still holds until it expires.
    const low = await quote(T.TKC);
    await book.control('anvil_setNextBlockBaseFeePerGas', ['0x' + ((await gasPrice()) * 10n).toString(16)]);
    await book.control('evm_mine');
    const high = await quote(T.TKC);
    assert.ok(BigInt(high.minimalFee) > 5n * BigInt(low.minimalFee));

    const below = await place(BigInt(low.minimalFee) - 1n);
    assert.equal(below.status, 400);
    assert.equal(below.json.errorType, 'InsufficientFee');
    const atLowest = await place(BigInt(low.minimalFee));
    assert.equal(atLowest.status, 201, `the lowest unexpired quote is enough: ${atLowest.text}`);
    assert.ok(Date.now() < Date.parse(low.expirationDate), 'the test placed it while the low quote was valid');

    // The fee ratio: 0.1% of a large sell amount (10,000 TKC) is more than the quote.
    const large = 10n ** 10n;
    const ratioFee = (large * BigInt(FEE_RATIO_BPS)) / 10_000n;
    assert.ok(ratioFee > BigInt(high.minimalFee));
    assert.equal((await place(ratioFee - 1n, large)).json.errorType, 'InsufficientFee');
    assert.equal((await place(ratioFee, large)).status, 201);

    // Once every quote has expired, the current gas price sets the minimum again.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(high.expirationDate) - Date.now()) + 200));
    const expired = await place(BigInt(low.minimalFee));
    assert.equal(expired.status, 400);
    assert.equal(expired.json.errorType, 'InsufficientFee');
    const current = await quote(T.TKC);
    assert.equal((await place(BigInt(current.minimalFee))).status, 201);
  });

  it('GET /api/v1/domain names the settlement contract, its domain separator and the vault relayer', async () => {
    const plan = devChainPlan();
    const res = await book.get('/domain');
    assert.equal(res.status, 200);
    const settlement = new Contract(book.settlement, gpv2Artifact('GPv2Settlement').abi as InterfaceAbi, book.client);
    assert.deepEqual(res.json, {
      name: 'Gnosis Protocol',
      version: 'v2',
      chainId: 1,
      verifyingContract: plan.settlement.address,
      domainSeparator: await settlement.domainSeparator(),
      vaultRelayer: plan.vaultRelayer,
    });
    assert.equal((await settlement.vaultRelayer()).toLowerCase(), plan.vaultRelayer);
  });
});
