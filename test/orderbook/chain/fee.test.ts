import assert from 'node:assert/strict';
import { Contract, ContractFactory, Wallet, parseUnits, type InterfaceAbi } from 'ethers';
import { localArtifact } from '../../../src/contracts/artifacts.js';
import { loadConfig, ConfigError } from '../../../src/wiring/config.js';
import { bootstrapDevChain, DEV_DEPLOYER, type DevChain } from '../../../src/wiring/gpv2.js';
import { FeeQuoter, minimalFee, parseDecimalPrice, type FeeSettings } from '../../../src/orderbook/chain/fee.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { mined, testToken } from '../../support/solver.js';

describe('fee quotes', () => {
  describe('pure parts', () => {
    it('parses decimal prices, fractional ones included', () => {
      assert.deepEqual(parseDecimalPrice('1000000000'), { numerator: 1000000000n, denominator: 1n });
      assert.deepEqual(parseDecimalPrice('2.5'), { numerator: 25n, denominator: 10n });
      assert.deepEqual(parseDecimalPrice('0.000001'), { numerator: 1n, denominator: 1000000n });
      assert.equal(parseDecimalPrice('-1'), null);
      assert.equal(parseDecimalPrice('1e9'), null);
    });

    it('divides the gas cost in native wei by the price per base unit, rounding up', () => {
      // 100,000 gas at 20 gwei = 2e15 wei; a token worth 5e8 wei per base unit (e.g. a 6-decimal dollar at
      // 2,000 dollars per ether) costs 4,000,000 base units.
      assert.equal(minimalFee(20_000_000_000n, 100_000n, { numerator: 500_000_000n, denominator: 1n }), 4_000_000n);
      assert.equal(minimalFee(7n, 1n, { numerator: 2n, denominator: 1n }), 4n); // 3.5 → 4
      assert.equal(minimalFee(10n, 1n, { numerator: 25n, denominator: 10n }), 4n); // price 2.5
      assert.throws(() => minimalFee(1n, 1n, { numerator: 0n, denominator: 1n }), /positive/);
    });

    it('configures pools and the native token by environment; pools need the native token', () => {
      const token = '0x' + 'ab'.repeat(20);
      const pair = '0x' + 'cd'.repeat(20);
      const native = '0x' + 'ef'.repeat(20);
      const config = loadConfig({ TOKEN_PRICE_POOLS: `${token.toUpperCase().replace('0X', '0x')}=${pair}`, NATIVE_TOKEN: native, TOKEN_PRICES: `${native}=1` });
      assert.deepEqual(config.orderbook.tokenPricePools, { [token]: pair });
      assert.equal(config.orderbook.nativeToken, native);
      assert.throws(() => loadConfig({ TOKEN_PRICE_POOLS: `${token}=${pair}` }), (err: Error) => err instanceof ConfigError && /NATIVE_TOKEN/.test(err.message));
      assert.throws(() => loadConfig({ TOKEN_PRICE_POOLS: `${token}=nope` }), ConfigError);
    });
  });

  describe('on anvil', () => {
    let chain: TestChain;
    let dev: DevChain;
    let pair: string;
    let emptyPair: string;
    const UNPRICED = '0x' + '77'.repeat(20);
    let clock = new Date('2026-01-01T00:00:00Z');
    const settings = (): FeeSettings => ({
      gasPerTrade: 100_000,
      feeRatioBps: 25,
      feeQuoteTtlSeconds: 600,
      tokenPrices: { [dev.tokens.TKC]: '500000000', [dev.tokens.TKB.toUpperCase().replace('0X', '0x')]: '2.5', [dev.tokens.TKA]: '1' },
      tokenPricePools: { [dev.tokens.TKA]: pair, [UNPRICED]: emptyPair },
      nativeToken: dev.tokens.TKB,
    });
    const gasPrice = async () => BigInt(await chain.send('eth_gasPrice'));

    before(async () => {
      chain = await startTestChain({ chainId: 1 });
      dev = await bootstrapDevChain(chain.rpc);
      const deployer = new Wallet(DEV_DEPLOYER.privateKey, chain.provider);
      const artifact = localArtifact('TestUniswapV2Pair');
      const deployPair = async (a: string, b: string) => {
        const contract = await new ContractFactory(artifact.abi as InterfaceAbi, artifact.bytecode, deployer).deploy(a, b);
        return (await contract.getAddress()).toLowerCase();
      };
      // TKB plays the wrapped native token: 1,000 TKA against 2 TKB → 1 TKA unit = 0.002 native wei.
      pair = await deployPair(dev.tokens.TKB, dev.tokens.TKA);
      await mined(testToken(dev.tokens.TKA, deployer).mint(pair, parseUnits('1000', 18)));
      await mined(testToken(dev.tokens.TKB, deployer).mint(pair, parseUnits('2', 18)));
      await mined(new Contract(pair, artifact.abi as InterfaceAbi, deployer).sync());
      emptyPair = await deployPair(dev.tokens.TKB, UNPRICED);
    });
    after(() => chain?.stop());

    it('prices from the static table with the chain gas price, and keeps the fee ratio and expiry', async () => {
      const quoter = new FeeQuoter(chain.rpc, settings(), { now: () => clock });
      const gas = await gasPrice();
      const result = await quoter.quote(dev.tokens.TKC.toUpperCase().replace('0X', '0x'));
      assert.ok(result.priceable);
      assert.deepEqual(result.quote, {
        sellToken: dev.tokens.TKC,
        minimalFee: (gas * 100_000n + 499_999_999n) / 500_000_000n,
        feeRatio: 25,
        expirationDate: new Date('2026-01-01T00:10:00Z'),
        gasPrice: gas,
        price: { numerator: 500_000_000n, denominator: 1n, source: 'table' },
      });
    });

    it('prices from pool reserves where a pool is configured, ahead of the table', async () => {
      const quoter = new FeeQuoter(chain.rpc, settings(), { now: () => clock });
      const gas = await gasPrice();
      const result = await quoter.quote(dev.tokens.TKA);
      assert.ok(result.priceable);
      // price = 2e18 / 1000e18 native wei per TKA unit → fee = cost × 1000 / 2.
      assert.equal(result.quote.minimalFee, gas * 100_000n * 500n);
      assert.equal(result.quote.price.source, 'pool');
      assert.deepEqual([result.quote.price.numerator, result.quote.price.denominator], [parseUnits('2', 18), parseUnits('1000', 18)]);
    });

    it('prices the native token 1:1 and a fractional table price exactly', async () => {
      const gas = await gasPrice();
      const native = await new FeeQuoter(chain.rpc, { ...settings(), tokenPrices: {} }).quote(dev.tokens.TKB);
      assert.ok(native.priceable);
      assert.equal(native.quote.minimalFee, gas * 100_000n);
      assert.equal(native.quote.price.source, 'native');

      const fractional = await new FeeQuoter(chain.rpc, { ...settings(), nativeToken: undefined, tokenPricePools: {} }).quote(dev.tokens.TKB);
      assert.ok(fractional.priceable);
      assert.equal(fractional.quote.minimalFee, (gas * 100_000n * 10n + 24n) / 25n);
    });

    it("prices the dev chain's tokens from their built-in prices, which the table and pools override", async () => {
      const gas = await gasPrice();
      const none: FeeSettings = { ...settings(), tokenPrices: {}, tokenPricePools: {}, nativeToken: undefined };
      assert.deepEqual(await new FeeQuoter(chain.rpc, none).quote(dev.tokens.TKC), { priceable: false, reason: `no price for token ${dev.tokens.TKC}` });
      const builtIn = new FeeQuoter(chain.rpc, none, { builtInPrices: dev.tokenPrices });
      assert.equal(builtIn.hasPriceSource(dev.tokens.TKA.toUpperCase().replace('0X', '0x')), true);
      const tka = await builtIn.quote(dev.tokens.TKA);
      assert.ok(tka.priceable);
      // 0.001 native wei per TKA atom: the fee is the gas cost × 1000.
      assert.deepEqual([tka.quote.price.numerator, tka.quote.price.denominator, tka.quote.price.source], [1n, 1000n, 'table']);
      assert.equal(tka.quote.minimalFee, gas * 100_000n * 1000n);
      const tkc = await builtIn.price(dev.tokens.TKC, false);
      assert.ok(tkc.priced);
      assert.deepEqual([tkc.price.numerator, tkc.price.denominator], [500_000_000n, 1n]);

      // TOKEN_PRICES (TKB = 2.5) and a pool (TKA's) come first; the built-in price fills in only where they say nothing.
      const configured = new FeeQuoter(chain.rpc, settings(), { builtInPrices: dev.tokenPrices });
      const tkb = await configured.price(dev.tokens.TKB, false);
      assert.ok(tkb.priced);
      assert.equal(tkb.price.source, 'native');
      const tableOverride = await new FeeQuoter(chain.rpc, { ...none, tokenPrices: { [dev.tokens.TKB]: '2.5' } }, { builtInPrices: dev.tokenPrices }).price(dev.tokens.TKB, false);
      assert.ok(tableOverride.priced);
      assert.deepEqual([tableOverride.price.numerator, tableOverride.price.denominator], [25n, 10n]);
      const pooled = await configured.price(dev.tokens.TKA, false);
      assert.ok(pooled.priced);
      assert.equal(pooled.price.source, 'pool');
    });

    it('answers not priceable for a token without a price, or whose only pool is empty', async () => {
      const quoter = new FeeQuoter(chain.rpc, settings(), { now: () => clock });
      const unknown = await quoter.quote('0x' + '99'.repeat(20));
      assert.deepEqual(unknown, { priceable: false, reason: `no price for token 0x${'99'.repeat(20)}` });
      const empty = await quoter.quote(UNPRICED);
      assert.deepEqual(empty, { priceable: false, reason: `no price for token ${UNPRICED} (pool ${emptyPair} has no reserves)` });
      const notAPair = await new FeeQuoter(chain.rpc, { ...settings(), tokenPricePools: { [UNPRICED]: dev.tokens.TKC } }).quote(UNPRICED);
      assert.deepEqual(notAPair, { priceable: false, reason: `no price for token ${UNPRICED} (pool ${dev.tokens.TKC} does not answer as a pair)` });
      assert.equal(quoter.lowestValidQuote(UNPRICED), undefined);
    });

    it('keeps quotes: the lowest unexpired one per sell token', async () => {
      clock = new Date('2026-01-01T00:00:00Z');
      const quoter = new FeeQuoter(chain.rpc, settings(), { now: () => clock });
      const first = await quoter.quote(dev.tokens.TKC);
      assert.ok(first.priceable);
      // Gas gets dearer: a later quote is higher.
      await chain.send('anvil_setNextBlockBaseFeePerGas', [`0x${(first.quote.gasPrice * 3n).toString(16)}`]);
      await chain.send('evm_mine');
      clock = new Date('2026-01-01T00:05:00Z');
      const second = await quoter.quote(dev.tokens.TKC);
      assert.ok(second.priceable);
      assert.ok(second.quote.minimalFee > first.quote.minimalFee);

      assert.equal(quoter.lowestValidQuote(dev.tokens.TKC), first.quote);
      assert.equal(quoter.lowestValidQuote(dev.tokens.TKC, new Date('2026-01-01T00:09:59Z')), first.quote);
      // The first expires at 00:10, the second at 00:15.
      assert.equal(quoter.lowestValidQuote(dev.tokens.TKC, new Date('2026-01-01T00:10:00Z')), second.quote);
      assert.equal(quoter.lowestValidQuote(dev.tokens.TKC, new Date('2026-01-01T00:15:00Z')), undefined);
      assert.equal(quoter.lowestValidQuote(dev.tokens.TKA), undefined);
    });
  });
});
