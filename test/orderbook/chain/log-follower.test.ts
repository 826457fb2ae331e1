import assert from 'node:assert/strict';
import { Wallet, id } from 'ethers';
import { bootstrapDevChain, type DevChain } from '../../../src/wiring/gpv2.js';
import { LogFollower, type FollowerChanges, type LogSink } from '../../../src/orderbook/chain/log-follower.js';
import { initialCheckpoint, ReorgTooDeepError, type FollowerCheckpoint } from '../../../src/orderbook/chain/reorg.js';
import { toQuantity, type ChainRpc } from '../../../src/orderbook/chain/rpc.js';
import { decodeSettlementLog, logKey, settlementTopics, type DecodedLog, type RawLog } from '../../../src/orderbook/chain/settlement-events.js';
import { gasFundedWallet, startTestChain, type TestChain } from '../../support/chain.js';
import { ZERO_APP_DATA } from '../../support/orders.js';
import { gpv2Domain } from '../../../src/orderbook/domain/eip712.js';
import {
  fundTrader,
  invalidateOrder,
  setPreSignature,
  signOrder,
  TestSolver,
  orderUid,
  type TestOrder,
} from '../../support/solver.js';
import { until } from '../../support/wait.js';
import { e18 } from '../../support/onchain.js';

/** A consumer that applies changes to a store of logs keyed by (blockHash, logIndex) and keeps the checkpoint. */
class StoreSink implements LogSink {
  readonly logs = new Map<string, DecodedLog>();
  readonly changes: FollowerChanges[] = [];
  duplicates = 0;
  savedCheckpoint: string | undefined;
  failNext = false;

  async onChanges(changes: FollowerChanges): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('store unavailable');
    }
    for (const log of changes.removed) {
      if (!this.logs.delete(logKey(log))) throw new Error(`removed a log never added: ${logKey(log)}`);
    }
    for (const log of changes.added) {
      if (this.logs.has(logKey(log))) this.duplicates++;
      this.logs.set(logKey(log), log);
    }
    this.changes.push(changes);
    this.savedCheckpoint = JSON.stringify(changes.checkpoint);
  }

  sorted(): DecodedLog[] {
    return [...this.logs.values()].sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
  }
}

/** The same RPC, counting the eth_getLogs block ranges asked for. */
function countingRpc(rpc: ChainRpc): ChainRpc & { ranges: [number, number][] } {
  const ranges: [number, number][] = [];
  return {
    ranges,
    async call(method, params) {
      if (method === 'eth_getLogs') {
        const filter = params[0] as { fromBlock: string; toBlock: string };
        ranges.push([Number(filter.fromBlock), Number(filter.toBlock)]);
      }
      return rpc.call(method, params);
    },
    batch: (calls) => rpc.batch(calls),
  };
}

describe('log follower (anvil)', () => {
  let chain: TestChain;
  let dev: DevChain;
  let owner: Wallet;
  let counter = 0;

  /** All settlement logs of the current chain, read in one go: what a follower should end up with. */
  async function truth(): Promise<DecodedLog[]> {
    const logs = (await chain.rpc.call('eth_getLogs', [
      { address: dev.settlement, fromBlock: '0x0', toBlock: 'latest', topics: [Object.values(settlementTopics())] },
    ])) as RawLog[];
    return logs.map(decodeSettlementLog).filter((l): l is DecodedLog => l !== null);
  }

  /** One OrderInvalidated event in a new block. */
  async function invalidation(): Promise<string> {
    const uid = orderUid(id(`order ${counter++}`), owner.address, 0xffffffff);
    await invalidateOrder(dev.settlement, owner, uid);
    return uid;
  }

  const mine = (blocks: number) => chain.send('anvil_mine', [toQuantity(blocks)]);
  const head = async () => chain.provider.getBlockNumber();
  const follower = (rpc: ChainRpc, sink: LogSink, checkpoint: FollowerCheckpoint, extra: Partial<ConstructorParameters<typeof LogFollower>[1]> = {}) =>
    new LogFollower(rpc, { address: dev.settlement, checkpoint, sink, maxBlockRange: 50, reorgWindow: 10, pollIntervalMs: 50, ...extra });

  beforeEach(async () => {
    chain = await startTestChain({ chainId: 1 });
    dev = await bootstrapDevChain(chain.rpc);
    owner = await gasFundedWallet(chain.provider, chain);
  });
  afterEach(() => chain?.stop());

  it('pages through history in bounded eth_getLogs ranges, then follows new blocks', async () => {
    await invalidation();
    await mine(120);
    const uid = await invalidation();
    await setPreSignature(dev.settlement, owner, uid, true);
    await mine(200);
    await invalidation();
    await mine(3);

    const rpc = countingRpc(chain.rpc);
    const sink = new StoreSink();
    const f = follower(rpc, sink, initialCheckpoint(0));
    await f.catchUp();

    assert.deepEqual(sink.sorted(), await truth());
    assert.equal(sink.sorted().length, 4);
    assert.equal(sink.duplicates, 0);
    const top = await head();
    assert.equal(f.checkpoint.blockNumber, top);
    assert.equal(f.checkpoint.blockHash, (await chain.provider.getBlock(top))!.hash);
    // Deep history in pages of at most 50 blocks, covering every block exactly once.
    assert.ok(rpc.ranges.every(([from, to]) => to - from + 1 <= 50), JSON.stringify(rpc.ranges));
    const covered = rpc.ranges.flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, i) => from + i));
    assert.deepEqual(covered, Array.from({ length: top + 1 }, (_, i) => i));
    assert.ok(rpc.ranges.length >= Math.ceil((top - 10) / 50));
    // Only the last reorgWindow (10) blocks are remembered.
    assert.ok(f.checkpoint.recent.every((b) => b.number >= top - 10));

    // Following: new blocks are picked up by polling.
    f.start();
    const later = await invalidation();
    await until(() => sink.sorted().some((l) => l.type === 'OrderInvalidated' && l.orderUid === later), 'the later invalidation, picked up by polling', 20_000);
    await f.stop();
    assert.deepEqual(sink.sorted(), await truth());
  });

  it('reports the logs of blocks removed by a reorganisation, then those of the new chain', async () => {
    const trader = () => gasFundedWallet(chain.provider, chain);
    const alice = await trader();
    const bob = await trader();
    await fundTrader(dev.tokens.TKA, alice, e18(10), dev.vaultRelayer);
    await fundTrader(dev.tokens.TKB, bob, e18(10), dev.vaultRelayer);
    await invalidation();

    const sink = new StoreSink();
    const f = follower(chain.rpc, sink, initialCheckpoint(0));
    await f.catchUp();
    const before = sink.sorted();

    const snapshot = await chain.send('evm_snapshot');
    const validTo = Math.floor(Date.now() / 1000) + 3600;
    const order = (sellToken: string, buyToken: string): TestOrder => ({
      sellToken, buyToken, sellAmount: e18(10), buyAmount: e18(10), validTo, appData: ZERO_APP_DATA, feeAmount: 0n, kind: 'sell', partiallyFillable: false,
    });
    const domain = gpv2Domain(dev.chainId, dev.settlement);
    const a = order(dev.tokens.TKA, dev.tokens.TKB);
    const b = order(dev.tokens.TKB, dev.tokens.TKA);
    const receipt = await new TestSolver(chain.provider, dev).settle(
      [
        { order: a, scheme: 'eip712', signature: await signOrder(alice, domain, a, 'eip712') },
        { order: b, scheme: 'eip712', signature: await signOrder(bob, domain, b, 'eip712') },
      ],
      { [dev.tokens.TKA]: 1n, [dev.tokens.TKB]: 1n },
    );
    await mine(2);
    await f.catchUp();
    const settled = sink.sorted().filter((l) => l.blockHash === receipt.blockHash.toLowerCase());
    assert.deepEqual(settled.map((l) => l.type), ['Trade', 'Trade', 'Settlement']);

    // Reorganise: back to before the settlement, and a longer chain with other contents.
    await chain.send('evm_revert', [snapshot]);
    const replacement = await invalidation();
    await mine(4);
    sink.changes.length = 0;
    await f.catchUp();

    const [change] = sink.changes;
    assert.deepEqual(
      change.removed.map((l) => [l.type, l.logIndex]),
      [...settled].reverse().map((l) => [l.type, l.logIndex]),
      'removed newest first',
    );
    assert.deepEqual(change.removed.map(logKey).sort(), settled.map(logKey).sort());
    assert.deepEqual(change.added.map((l) => l.type === 'OrderInvalidated' && l.orderUid), [replacement]);
    assert.deepEqual(sink.sorted(), await truth());
    assert.equal(sink.sorted().length, before.length + 1);
    assert.equal(f.checkpoint.blockHash, (await chain.provider.getBlock('latest'))!.hash);
  });

  it('rolls back when the chain gets shorter without new blocks', async () => {
    const sink = new StoreSink();
    const f = follower(chain.rpc, sink, initialCheckpoint(0));
    const snapshot = await chain.send('evm_snapshot');
    const base = await head();
    await invalidation();
    await invalidation();
    await f.catchUp();
    assert.equal(sink.logs.size, 2);

    await chain.send('evm_revert', [snapshot]);
    sink.changes.length = 0;
    assert.equal(await f.tick(), true);
    assert.equal(sink.changes[0].removed.length, 2);
    assert.equal(sink.changes[0].added.length, 0);
    assert.equal(sink.logs.size, 0);
    assert.equal(f.checkpoint.blockNumber, base);
    assert.equal(await f.tick(), false);
  });

  it('resumes from a stored checkpoint without missing or repeating a log, also after a failed store', async () => {
    await invalidation();
    await invalidation();
    const sink = new StoreSink();
    const first = follower(chain.rpc, sink, initialCheckpoint(0));
    await first.catchUp();
    const stored = sink.savedCheckpoint!;

    // More history while "down", including a page far below the head.
    await invalidation();
    await mine(80);
    await invalidation();
    await mine(2);

    // A new process: the checkpoint comes back from storage as JSON.
    const second = follower(chain.rpc, sink, JSON.parse(stored) as FollowerCheckpoint);
    sink.failNext = true;
    await assert.rejects(second.tick(), /store unavailable/);
    assert.deepEqual(second.checkpoint, JSON.parse(stored), 'a failed sink leaves the checkpoint where it was');
    await second.catchUp();

    assert.equal(sink.duplicates, 0);
    assert.deepEqual(sink.sorted(), await truth());
    assert.equal(sink.sorted().length, 4);
  });

  it('stops with ReorgTooDeepError when a reorganisation goes below the window', async () => {
    const sink = new StoreSink();
    const snapshot = await chain.send('evm_snapshot');
    await invalidation();
    await mine(8);
    const f = follower(chain.rpc, sink, initialCheckpoint(0), { reorgWindow: 3 });
    await f.catchUp();

    await chain.send('evm_revert', [snapshot]);
    await invalidation();
    await mine(12);
    await assert.rejects(f.tick(), ReorgTooDeepError);

    const errors: Error[] = [];
    const running = follower(chain.rpc, sink, f.checkpoint, { reorgWindow: 3, onError: (err) => errors.push(err) });
    running.start();
    await until(() => errors.length > 0, 'the follower reporting the reorganisation', 20_000);
    await running.stop();
    assert.ok(errors[0] instanceof ReorgTooDeepError);
  });
});

