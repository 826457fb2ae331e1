/**
 * The CoW TradingSdk, unchanged (@cowprotocol/cow-sdk 9.2.6 with @cowprotocol/sdk-viem-adapter 0.3.17 and
 * viem), against the service on its embedded chain with no configuration: the SDK is given chain id 1 and
 * the order book's base URL only, and its defaults (the canonical GPv2Settlement and vault relayer) hold
 * because the dev chain deploys GPv2 at mainnet's addresses. A trader approves, quotes, swaps, places a
 * limit order with fee 0 and no quote, a presign order it then presigns on chain, reads and cancels.
 * The setup is the README's "Trade with the CoW SDK" code.
 */
import assert from 'node:assert/strict';
import { OrderBookApi, OrderKind, SigningScheme, TradingSdk, type ApiBaseUrls } from '@cowprotocol/cow-sdk';
import { ViemAdapter } from '@cowprotocol/sdk-viem-adapter';
import { createPublicClient, createWalletClient, erc20Abi, http, parseAbi, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { mainnet } from 'viem/chains';
import { DEV_KEYS } from '../../support/chain.js';
import { DEV_TOKEN_ADDRESSES as T, startOnchainBook, type OnchainBook } from '../../support/onchain.js';

const SETTLEMENT = '0x9008d19f58aabd9ed0d60971565aa8510560ab41';
const VAULT_RELAYER = '0xc92e8bdf79f0507f65a392b0ab4667716bfe0110';
const account = privateKeyToAccount(DEV_KEYS[2]); // anvil's dev account #2

/** The README's setup: viem clients on the gateway's mainnet network, and the SDK on the order book. */
function connect(rpcUrl: string, orderBookUrl: string) {
  const rpc = http(rpcUrl);
  const publicClient = createPublicClient({ chain: mainnet, transport: rpc });
  const walletClient = createWalletClient({ account, chain: mainnet, transport: rpc });
  const orderBookApi = new OrderBookApi({ chainId: 1, baseUrls: { 1: orderBookUrl } as ApiBaseUrls });
  const sdk = new TradingSdk({ chainId: 1, appCode: 'my-app' }, { orderBookApi }, new ViemAdapter({ provider: publicClient, walletClient }));
  return { publicClient, walletClient, orderBookApi, sdk };
}

describe('order book: the CoW TradingSdk with its defaults on the embedded chain', function () {
  this.timeout(120_000);
  let book: OnchainBook;
  let sdk: TradingSdk;
  let orderBookApi: OrderBookApi;
  let publicClient: ReturnType<typeof connect>['publicClient'];
  let walletClient: ReturnType<typeof connect>['walletClient'];
  const owner = account.address.toLowerCase();
  const TKA = T.TKA as `0x${string}`;
  const TKB = T.TKB as `0x${string}`;
  const tokens = { sellToken: TKA, sellTokenDecimals: 18, buyToken: TKB, buyTokenDecimals: 18 };
  let swapUid: string;
  let limitUid: string;

  before(async () => {
    book = await startOnchainBook();
    // The gateway's mainnet network (its own port) and the service's base URL.
    ({ publicClient, walletClient, orderBookApi, sdk } = connect(book.service.networkUrls.mainnet, book.service.url));

    // The trader mints TKA (anyone may mint a dev token).
    const mint = parseAbi(['function mint(address to, uint256 amount)']);
    const minted = await walletClient.writeContract({ address: TKA, abi: mint, functionName: 'mint', args: [account.address, parseUnits('1000', 18)] });
    assert.equal((await publicClient.waitForTransactionReceipt({ hash: minted })).status, 'success');
  });
  after(() => book?.stop());

  it('approveCowProtocol approves the canonical vault relayer, the one the chain has', async () => {
    assert.equal(book.vaultRelayer, VAULT_RELAYER);
    assert.equal(book.settlement, SETTLEMENT);
    const amount = parseUnits('1000', 18);
    const approved = await sdk.approveCowProtocol({ tokenAddress: TKA, amount: parseUnits('1000', 18) });
    assert.equal((await publicClient.waitForTransactionReceipt({ hash: approved as `0x${string}` })).status, 'success');
    assert.equal(await publicClient.readContract({ address: TKA, abi: erc20Abi, functionName: 'allowance', args: [account.address, VAULT_RELAYER] }), amount);
    assert.equal(await sdk.getCowProtocolAllowance({ tokenAddress: TKA, owner: account.address }), amount);
  });

  it('getQuote prices TKA for TKB from the dev tokens\' built-in prices (1 TKB = 2 TKA)', async () => {
    const { quoteResults } = await sdk.getQuote({ kind: OrderKind.SELL, ...tokens, amount: parseUnits('100', 18).toString() });
    const quote = quoteResults.quoteResponse.quote;
    assert.equal(quote.sellToken, TKA.toLowerCase());
    assert.equal(quote.buyToken, TKB.toLowerCase());
    const fee = BigInt(quote.feeAmount);
    assert.ok(fee > 0n, 'the network cost, in TKA');
    assert.equal(BigInt(quote.sellAmount) + fee, parseUnits('100', 18), 'the quote sells 100 TKA, its fee included');
    assert.equal(BigInt(quote.buyAmount), BigInt(quote.sellAmount) / 2n);
    assert.equal(typeof quoteResults.quoteResponse.id, 'number');
    // The order the SDK would sign: fee 0, the costs and slippage taken from the buy amount.
    assert.equal(quoteResults.orderToSign.feeAmount, '0');
    assert.ok(BigInt(quoteResults.orderToSign.buyAmount) < BigInt(quote.buyAmount));
  });

  it('postSwapOrder signs for the canonical settlement and places a market order naming its quote', async () => {
    const { orderId, signingScheme } = await sdk.postSwapOrder({ kind: OrderKind.SELL, ...tokens, amount: parseUnits('100', 18).toString() });
    swapUid = orderId;
    assert.equal(signingScheme, SigningScheme.EIP712);
    const order = await sdk.getOrder({ orderUid: orderId });
    assert.equal(order.uid, orderId);
    assert.equal(order.owner, owner);
    assert.equal(order.status, 'open');
    assert.equal(order.class, 'market');
    assert.equal(order.feeAmount, '0');
    assert.equal(order.sellAmount, parseUnits('100', 18).toString());
    assert.equal(order.settlementContract, SETTLEMENT);
    assert.equal(typeof (order as { quoteId?: number }).quoteId, 'number');
  });

  it('postLimitOrder places an order with fee 0 and no quote: a limit order', async () => {
    // 10 TKA for 100 TKB: ten times the market price, so it stays open.
    const { orderId } = await sdk.postLimitOrder({ kind: OrderKind.SELL, ...tokens, sellAmount: parseUnits('10', 18).toString(), buyAmount: parseUnits('100', 18).toString() });
    limitUid = orderId;
    const order = await sdk.getOrder({ orderUid: orderId });
    assert.equal(order.status, 'open');
    assert.equal(order.class, 'limit');
    assert.equal(order.feeAmount, '0');
    assert.equal((order as { quoteId?: number }).quoteId ?? null, null, 'no quote named');
    assert.equal(order.buyAmount, parseUnits('100', 18).toString());
  });

  it('a presign order waits for its presignature, which the SDK builds and the trader sends', async () => {
    const { orderId, signingScheme } = await sdk.postLimitOrder(
      { kind: OrderKind.SELL, ...tokens, sellAmount: parseUnits('5', 18).toString(), buyAmount: parseUnits('50', 18).toString() },
      { additionalParams: { signingScheme: SigningScheme.PRESIGN } },
    );
    assert.equal(signingScheme, SigningScheme.PRESIGN);
    assert.equal((await sdk.getOrder({ orderUid: orderId })).status, 'presignaturePending');
    const tx = await sdk.getPreSignTransaction({ orderUid: orderId });
    assert.equal(tx.to.toLowerCase(), SETTLEMENT);
    const hash = await walletClient.sendTransaction({
      to: tx.to as `0x${string}`,
      data: tx.data as `0x${string}`,
      gas: BigInt(tx.gasLimit),
      value: BigInt(tx.value),
    });
    assert.equal((await publicClient.waitForTransactionReceipt({ hash })).status, 'success');
    await book.indexed();
    await book.orderbook.runner.waitFor(await book.orderbook.events.head());
    const order = await sdk.getOrder({ orderUid: orderId });
    assert.equal(order.status, 'open');
    assert.equal(order.signingScheme, SigningScheme.PRESIGN);
  });

  it('offChainCancelOrder cancels the limit order; the swap stays open', async () => {
    assert.equal(await sdk.offChainCancelOrder({ orderUid: limitUid }), true);
    assert.equal((await sdk.getOrder({ orderUid: limitUid })).status, 'cancelled');
    assert.equal((await sdk.getOrder({ orderUid: swapUid })).status, 'open');
    const mine = await orderBookApi.getOrders({ owner: account.address });
    assert.deepEqual(new Set(mine.map((o) => o.uid)).has(limitUid), true);
  });

  it('native prices of the dev tokens answer with no configuration', async () => {
    assert.deepEqual(await orderBookApi.getNativePrice(TKA), { price: 0.001 });
    assert.deepEqual(await orderBookApi.getNativePrice(T.TKC), { price: 500000000 });
  });
});
