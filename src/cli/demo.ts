/**
 * npm run demo
 *
 * A living market on a running `npm start`: four of the dev chain's accounts trade through the CoW
 * Protocol TradingSdk itself (@cowprotocol/cow-sdk with its viem adapter), as an integrator's app would:
 * they approve the vault relayer, ask for quotes, post swaps (market orders from a quote) and limit orders
 * around the quoted price on both sides of each pair, and cancel old orders, at a gentle pace. The dev
 * solver settles the orders that cross, so the explorer shows orders arriving, trading and leaving.
 * Ctrl-C stops it.
 *
 * ETHGATE_URL names the service (default http://127.0.0.1:8080). The chain is reached through the
 * service's gateway (its WebSocket channel on the main port, which relays every method a wallet needs) on
 * the network whose chain id GET /api/v1/domain names. The SDK and viem are development dependencies: the
 * demo runs from a full checkout (`npm install`), not from a production install.
 */
import { HDNodeWallet, Mnemonic } from 'ethers';
import { OrderBookApi, OrderKind, TradingSdk, type SupportedChainId } from '@cowprotocol/cow-sdk';
import { ViemAdapter } from '@cowprotocol/sdk-viem-adapter';
import { createPublicClient, createWalletClient, defineChain, maxUint256, parseAbi, webSocket, type Chain, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { devChainPlan } from '../wiring/gpv2.js';

/** Anvil's dev mnemonic; accounts #0 (deployer) and #1 (the dev solver) are left alone. */
const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
const TRADER_INDEXES = [2, 3, 4, 5];
/** The dev tokens (the same addresses on every fresh dev chain, see devChainPlan), with their decimals. */
const TOKENS = [
  { symbol: 'TKA', decimals: 18 },
  { symbol: 'TKB', decimals: 18 },
  { symbol: 'TKC', decimals: 6 },
] as const;
/** Time between two actions, and the most open orders a trader keeps. */
const PACE_MS = 1500;
const MAX_OPEN_PER_TRADER = 4;
const LIMIT_VALID_FOR_SECONDS = 600;

const erc20Abi = parseAbi([
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function balanceOf(address) view returns (uint256)',
  'function mint(address to, uint256 amount)',
]);

interface Token {
  symbol: string;
  address: Hex;
  decimals: number;
}

interface Trader {
  name: string;
  account: PrivateKeyAccount;
  key: Hex;
  open: { uid: string; at: number }[];
}

interface Domain {
  chainId: number;
}

const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${(await res.text()).slice(0, 200)}`);
  return (await res.json()) as T;
}

/** The dev tokens on this chain, checked by their symbol. */
async function devTokens(client: PublicClient, addresses: Record<string, Hex>): Promise<Token[]> {
  const tokens: Token[] = [];
  for (const t of TOKENS) {
    const address = addresses[t.symbol];
    const symbol = await client.readContract({ address, abi: erc20Abi, functionName: 'symbol' }).catch(() => undefined);
    if (symbol !== t.symbol) throw new Error(`no ${t.symbol} at ${address}: is this the embedded dev chain?`);
    tokens.push({ symbol: t.symbol, address, decimals: t.decimals });
  }
  return tokens;
}

function traderKey(index: number): Hex {
  return HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(DEV_MNEMONIC), `m/44'/60'/0'/0/${index}`).privateKey as Hex;
}

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)];
/** `whole` units of a token with up to 2 decimals, in atoms. */
const atoms = (token: Token, whole: number) => (BigInt(Math.round(whole * 100)) * 10n ** BigInt(token.decimals)) / 100n;
const shown = (token: Token, raw: bigint | string) => {
  const v = Number(BigInt(raw)) / 10 ** token.decimals;
  return `${v.toLocaleString('en-US', { maximumSignificantDigits: 6 })} ${token.symbol}`;
};

export async function runDemo(serviceUrl: string, stop: AbortSignal): Promise<void> {
  const domain = await getJson<Domain>(`${serviceUrl}/api/v1/domain`);
  const status = await getJson<{ networks: Record<string, { chainId: number }> }>(`${serviceUrl}/status`);
  const network = Object.entries(status.networks).find(([, n]) => n.chainId === domain.chainId)?.[0];
  if (!network) throw new Error(`the service has no network of chain ${domain.chainId}`);
  const chainId = domain.chainId as SupportedChainId;
  const wsUrl = `${serviceUrl.replace(/^http/, 'ws')}/v1/jsonrpc/${network}/ws`;
  const chain: Chain = defineChain({
    id: domain.chainId,
    name: network,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [], webSocket: [wsUrl] } },
  });
  const transport = webSocket(wsUrl, { retryCount: 3 });
  const client = createPublicClient({ chain, transport }) as PublicClient;

  const tokens = await devTokens(client, Object.fromEntries(devChainPlan().tokens.map((t) => [t.symbol, t.address as Hex])));
  const traders: Trader[] = TRADER_INDEXES.map((index) => {
    const key = traderKey(index);
    return { name: `trader#${index}`, key, account: privateKeyToAccount(key), open: [] };
  });

  // The SDK's defaults (GPv2's canonical settlement and vault relayer, which the dev chain has) and the
  // order book's address: nothing else.
  const orderBookApi = new OrderBookApi({ chainId, baseUrls: { [chainId]: serviceUrl } as never });
  const sdk = new TradingSdk(
    { chainId, appCode: 'ethgate-demo' },
    { orderBookApi },
    new ViemAdapter({ provider: client, signer: traders[0].key }),
  );

  // Tokens and allowances: minted where a trader runs low (the dev tokens mint to anyone), approved once.
  for (const trader of traders) {
    const wallet = createWalletClient({ account: trader.account, chain, transport });
    for (const token of tokens) {
      const balance = await client.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [trader.account.address] });
      if (balance < atoms(token, 1000)) {
        const hash = await wallet.writeContract({ address: token.address, abi: erc20Abi, functionName: 'mint', args: [trader.account.address, atoms(token, 10_000)] });
        await client.waitForTransactionReceipt({ hash });
      }
      const allowance = await sdk.getCowProtocolAllowance({ tokenAddress: token.address, owner: trader.account.address });
      if (allowance < atoms(token, 1000)) {
        const hash = await sdk.approveCowProtocol({ tokenAddress: token.address, amount: maxUint256, signer: trader.key });
        await client.waitForTransactionReceipt({ hash: hash as Hex });
      }
    }
    log(`${trader.name} ${trader.account.address} holds the dev tokens and approved the vault relayer`);
  }

  const pair = () => {
    const sell = pick(tokens);
    const buy = pick(tokens.filter((t) => t !== sell));
    return { sell, buy };
  };

  /** A quote, then the swap the SDK posts from it (a market order with the quote's id and slippage). */
  const swap = async (trader: Trader) => {
    const { sell, buy } = pair();
    // Small swaps (fill-or-kill, as the SDK posts them) fit into the larger limit orders resting opposite.
    const amount = atoms(sell, 1 + Math.random() * 4);
    const { orderId } = await sdk.postSwapOrder({
      kind: OrderKind.SELL,
      sellToken: sell.address,
      sellTokenDecimals: sell.decimals,
      buyToken: buy.address,
      buyTokenDecimals: buy.decimals,
      amount: amount.toString(),
      slippageBps: 50 + Math.floor(Math.random() * 150),
      signer: trader.key,
    });
    trader.open.push({ uid: orderId, at: Date.now() });
    log(`${trader.name} swaps ${shown(sell, amount)} for ${buy.symbol} at the quote: ${orderId.slice(0, 18)}…`);
  };

  /** A limit order around the quoted price: some rest in the book, some cross the other side. */
  const limit = async (trader: Trader) => {
    const { sell, buy } = pair();
    const amount = atoms(sell, 5 + Math.random() * 20);
    const { quoteResults } = await sdk.getQuote({
      kind: OrderKind.SELL,
      sellToken: sell.address,
      sellTokenDecimals: sell.decimals,
      buyToken: buy.address,
      buyTokenDecimals: buy.decimals,
      amount: amount.toString(),
      signer: trader.key,
    });
    const quoted = BigInt(quoteResults.quoteResponse.quote.buyAmount);
    // From 1.5% below to 2.5% above the quote, in basis points: two opposite orders cross when their
    // premiums add up to less than nothing, so some rest in the book and some trade.
    const bps = BigInt(Math.round(-150 + Math.random() * 400));
    const buyAmount = (quoted * (10_000n + bps)) / 10_000n;
    if (buyAmount <= 0n) return;
    // Mostly partially fillable: the dev solver matches two orders at a time, and two fill-or-kill ones
    // only when their sizes agree.
    const partiallyFillable = Math.random() < 0.8;
    const { orderId } = await sdk.postLimitOrder({
      kind: OrderKind.SELL,
      sellToken: sell.address,
      sellTokenDecimals: sell.decimals,
      buyToken: buy.address,
      buyTokenDecimals: buy.decimals,
      sellAmount: amount.toString(),
      buyAmount: buyAmount.toString(),
      quoteId: quoteResults.quoteResponse.id,
      validFor: LIMIT_VALID_FOR_SECONDS,
      partiallyFillable,
      signer: trader.key,
    });
    trader.open.push({ uid: orderId, at: Date.now() });
    log(`${trader.name} limit: ${shown(sell, amount)} for ${shown(buy, buyAmount)}${partiallyFillable ? ' (partially fillable)' : ''}: ${orderId.slice(0, 18)}…`);
  };

  /** Forgets orders that left the book; cancels the oldest open one when the trader holds too many. */
  const tidy = async (trader: Trader) => {
    const still: Trader['open'] = [];
    for (const o of trader.open) {
      const order = await sdk.getOrder({ orderUid: o.uid });
      if (order.status === 'open' || order.status === 'presignaturePending') still.push(o);
      else if (order.status === 'fulfilled') log(`${trader.name}'s order ${o.uid.slice(0, 18)}… traded`);
    }
    trader.open = still;
    if (trader.open.length < MAX_OPEN_PER_TRADER && Math.random() < 0.8) return false;
    const oldest = trader.open.shift();
    if (!oldest) return false;
    await sdk.offChainCancelOrder({ orderUid: oldest.uid, signer: trader.key });
    log(`${trader.name} cancels ${oldest.uid.slice(0, 18)}…`);
    return true;
  };

  log(`trading on ${serviceUrl} (chain ${domain.chainId}, ${network}); open it in a browser to watch; Ctrl-C stops`);
  let turn = 0;
  while (!stop.aborted) {
    const trader = traders[turn++ % traders.length];
    try {
      if (!(await tidy(trader))) await (Math.random() < 0.35 ? swap(trader) : limit(trader));
    } catch (err) {
      if (stop.aborted) break;
      log(`${trader.name}: ${(err as Error).message.split('\n')[0]}`);
    }
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stop.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, PACE_MS);
      stop.addEventListener('abort', done);
    });
  }
}

async function main(): Promise<void> {
  const url = (process.env.ETHGATE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const stop = new AbortController();
  process.once('SIGINT', () => {
    log('stopping');
    stop.abort();
  });
  process.once('SIGTERM', () => stop.abort());
  await runDemo(url, stop.signal);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`demo failed: ${(err as Error).message}`);
    process.exit(1);
  },
);
