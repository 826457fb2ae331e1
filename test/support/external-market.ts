/**
 * An external chain for the order book's process tests: traders and opposite orders POSTed to a service
 * child process, settled by the test solver on an anvil the test owns (so it outlives the service), and
 * checks that each Trade log is in the book exactly once.
 */
import assert from 'node:assert/strict';
import { Wallet } from 'ethers';
import type { Order } from '../../src/generated/orderbook/order.js';
import type { Trade } from '../../src/generated/orderbook/trade.js';
import type { DevChain } from '../../src/wiring/gpv2.js';
import { gasFundedWallet, type TestChain } from './chain.js';
import { http, postJson } from './http.js';
import { e18, settledTrade, signed, type PlacedOrder } from './onchain.js';
import type { ServiceProcess } from './service-process.js';
import { gpv2Domain } from '../../src/orderbook/domain/eip712.js';
import { fundTrader, TestSolver } from './solver.js';
import { until } from './wait.js';

interface StoredEventJson {
  position: number;
  streamId: string;
  type: string;
  data: { uid: string; chain?: { blockHash: string; logIndex: number } };
}

/** Every event of the service's log, a page at a time. */
export async function allEvents(url: string): Promise<StoredEventJson[]> {
  const events: StoredEventJson[] = [];
  for (;;) {
    const after = events.at(-1)?.position ?? 0;
    const page = (await http(`${url}/api/v1/events?after=${after}&limit=1000`)).json as StoredEventJson[];
    if (page.length === 0) return events;
    events.push(...page);
  }
}

/** Asserts that each settled Trade log is in the book once: one trade, one TradeRecorded, per log and per order. */
export async function assertEachTradeOnce(url: string, expected: { uid: string; blockHash: string; logIndex: number }[]): Promise<void> {
  const trades = (await http(`${url}/api/v1/trades?limit=1000`)).json as Trade[];
  const byLog = new Set(trades.map((t) => `${t.blockNumber}:${t.logIndex}`));
  assert.equal(byLog.size, trades.length, 'no (blockNumber, logIndex) twice');
  assert.deepEqual(trades.map((t) => t.orderUid).sort(), expected.map((e) => e.uid).sort(), 'one trade per settled order');

  const recorded = (await allEvents(url)).filter((e) => e.type === 'TradeRecorded');
  const keys = recorded.map((e) => `${e.data.chain!.blockHash}:${e.data.chain!.logIndex}`);
  assert.equal(new Set(keys).size, keys.length, 'no Trade log recorded twice in the event log');
  assert.deepEqual(keys.sort(), expected.map((e) => `${e.blockHash}:${e.logIndex}`).sort(), 'every Trade log recorded');
  for (const { uid } of expected) {
    const stream = (await http(`${url}/api/v1/orders/${uid}/events`)).json as { type: string }[];
    assert.deepEqual(stream.map((e) => e.type), ['OrderCreated', 'TradeRecorded'], uid);
    assert.equal(((await http(`${url}/api/v1/orders/${uid}`)).json as Order).status, 'fulfilled', uid);
  }
}

/** Waits until the service's indexer has processed `block`, as its /healthz tells. */
export async function indexedTo(service: ServiceProcess, block: number, timeoutMs = 60_000): Promise<void> {
  await until(
    async () => {
      const health = await http(`${service.url}/healthz`).catch(() => undefined);
      return (health?.json?.orderbook?.indexer?.block ?? -1) >= block;
    },
    `the indexer at block ${block}`,
    timeoutMs,
  );
}

/** Funded traders and pairs of opposite orders on an external chain, settled by the test solver. */
export class Market {
  readonly solver: TestSolver;
  readonly settled: { uid: string; blockHash: string; logIndex: number }[] = [];

  constructor(
    readonly chain: TestChain,
    readonly dev: DevChain,
  ) {
    this.solver = new TestSolver(chain.provider, dev);
  }

  private async trader(token: string): Promise<Wallet> {
    const wallet = await gasFundedWallet(this.chain.provider, this.chain);
    await fundTrader(token, wallet, e18(10), this.dev.vaultRelayer);
    return wallet;
  }

  /** Two opposite orders, POSTed to the service at `url`. */
  async pair(url: string): Promise<[PlacedOrder, PlacedOrder]> {
    const { TKA, TKB } = this.dev.tokens;
    const domain = gpv2Domain(this.dev.chainId, this.dev.settlement);
    const a = await signed(await this.trader(TKA), domain, { sellToken: TKA, buyToken: TKB, sellAmount: e18(10), buyAmount: e18(10) });
    const b = await signed(await this.trader(TKB), domain, { sellToken: TKB, buyToken: TKA, sellAmount: e18(10), buyAmount: e18(10) });
    for (const placed of [a, b]) {
      const res = await postJson(`${url}/api/v1/orders`, placed.body);
      assert.equal(res.status, 201, res.text);
    }
    return [a, b];
  }

  /** Settles a pair in one transaction; remembers its Trade logs. */
  async settle([a, b]: [PlacedOrder, PlacedOrder]): Promise<number> {
    const receipt = await this.solver.settle([settledTrade(a), settledTrade(b)], { [this.dev.tokens.TKA]: 1n, [this.dev.tokens.TKB]: 1n });
    const logs = receipt.logs.filter((l) => l.address.toLowerCase() === this.dev.settlement);
    // Trade, Trade, Settlement: the trades come in the order of the encoded trades.
    this.settled.push(
      { uid: a.uid, blockHash: receipt.blockHash.toLowerCase(), logIndex: logs[0].index },
      { uid: b.uid, blockHash: receipt.blockHash.toLowerCase(), logIndex: logs[1].index },
    );
    return receipt.blockNumber;
  }
}

export function externalChainEnv(chain: TestChain, dev: DevChain): Record<string, string> {
  return {
    NETWORKS: 'mainnet',
    UPSTREAM_MAINNET: chain.anvil.httpUrl,
    SETTLEMENT_CONTRACT: dev.settlement,
    INDEXER_START_BLOCK: '0',
    ORDERBOOK: 'on',
  };
}
