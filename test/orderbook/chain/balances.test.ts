/**
 * Spendable balances on anvil: readSpendable (chain/balances.ts) reads min(balance, allowance to the vault
 * relayer) of many pairs in bounded batches at one block; ChainBalances (chain/live.ts) keeps them current
 * for the order book: one read per turn of order creation, every tracked pair again at each new head, a
 * token that fails to answer costing its own pair only.
 */
import assert from 'node:assert/strict';
import { MaxUint256, Wallet } from 'ethers';
import { readSpendable, ownerTokenKey } from '../../../src/orderbook/chain/balances.js';
import { bootstrapDevChain, DEV_DEPLOYER, type DevChain } from '../../../src/wiring/gpv2.js';
import { ChainError, type ChainRpc, type RpcCall } from '../../../src/orderbook/chain/rpc.js';
import { ChainBalances } from '../../../src/orderbook/chain/live.js';
import { logger } from '../../../src/shared/logger.js';
import { gasFundedWallet, startTestChain, type TestChain } from '../../support/chain.js';
import { deployEip1271Wallet, deployFaultyToken, eip1271Wallet, fundTrader, mined, testToken } from '../../support/solver.js';
import { e18 } from '../../support/onchain.js';
import { nextTurn } from '../../../src/shared/next-turn.js';

/** The same RPC, recording the eth_call batches sent (each pair is a balanceOf and an allowance call). */
function recordingRpc(rpc: ChainRpc): ChainRpc & { batches: RpcCall[][] } {
  const batches: RpcCall[][] = [];
  return { batches, call: (m, p) => rpc.call(m, p), batch: (calls) => (batches.push(calls), rpc.batch(calls)) };
}

/** The owners whose balanceOf a batch asked for, lowercase. */
function ownersRead(batch: RpcCall[]): string[] {
  return batch
    .map((c) => (c.params[0] as { data: string }).data)
    .filter((data) => data.startsWith('0x70a08231')) // balanceOf(address)
    .map((data) => '0x' + data.slice(-40));
}

describe('spendable balances (anvil)', () => {
  let chain: TestChain;
  let dev: DevChain;

  before(async () => {
    chain = await startTestChain({ chainId: 1 });
    dev = await bootstrapDevChain(chain.rpc);
  });
  after(() => chain?.stop());

  describe('readSpendable', () => {
    let alice: Wallet;
    let bob: Wallet;
    let wallet: string;

    before(async () => {
      const trader = () => gasFundedWallet(chain.provider, chain);
      alice = await trader();
      bob = await trader();
      await fundTrader(dev.tokens.TKA, alice, e18(100), dev.vaultRelayer, e18(40)); // allowance below balance
      await fundTrader(dev.tokens.TKB, alice, e18(5), dev.vaultRelayer, MaxUint256); // balance below allowance
      // An EIP-1271 contract owner holds and approves like anyone else.
      wallet = await deployEip1271Wallet(bob);
      await mined(testToken(dev.tokens.TKC, bob).mint(wallet, 7_000000n));
      await mined(eip1271Wallet(wallet, bob).approveToken(dev.tokens.TKC, dev.vaultRelayer, 3_000000n));
    });

    it('reads min(balance, allowance to the vault relayer) for every pair in bounded batches at one block', async () => {
      const rpc = recordingRpc(chain.rpc);
      const noCode = '0x' + '12'.repeat(20);
      const pairs = [
        { owner: alice.address, token: dev.tokens.TKA },
        { owner: alice.address, token: dev.tokens.TKB },
        { owner: bob.address, token: dev.tokens.TKA },
        { owner: wallet, token: dev.tokens.TKC },
        { owner: alice.address.toLowerCase(), token: dev.tokens.TKA.toUpperCase().replace('0X', '0x') }, // same pair again
        { owner: alice.address, token: noCode },
      ];
      const read = await readSpendable(rpc, dev.vaultRelayer, pairs, { maxBatchSize: 4 });
      const get = (owner: string, token: string) => read.amounts.get(ownerTokenKey(owner, token))!;

      assert.equal(read.block, await chain.provider.getBlockNumber());
      assert.equal(read.amounts.size, 5);
      assert.deepEqual(get(alice.address, dev.tokens.TKA), {
        owner: alice.address.toLowerCase(),
        token: dev.tokens.TKA,
        balance: e18(100),
        allowance: e18(40),
        spendable: e18(40),
      });
      assert.equal(get(alice.address, dev.tokens.TKB).spendable, e18(5));
      assert.equal(get(alice.address, dev.tokens.TKB).allowance, MaxUint256);
      assert.equal(get(bob.address, dev.tokens.TKA).spendable, 0n);
      assert.equal(get(wallet, dev.tokens.TKC).spendable, 3_000000n);
      assert.deepEqual([get(alice.address, noCode).balance, get(alice.address, noCode).spendable], [0n, 0n]);
      // 5 pairs = 10 eth_calls, at most 4 a batch, all at the same block.
      assert.deepEqual(rpc.batches.map((b) => b.length), [4, 4, 2]);
      const blocks = new Set(rpc.batches.flat().map((c) => c.params[1]));
      assert.deepEqual([...blocks], [`0x${read.block.toString(16)}`]);
    });

    it('reads at a given block, so later transfers do not show', async () => {
      const block = await chain.provider.getBlockNumber();
      await mined(testToken(dev.tokens.TKA, alice).transfer(bob.address, e18(90)));
      const pair = [{ owner: alice.address, token: dev.tokens.TKA }];
      const then = await readSpendable(chain.rpc, dev.vaultRelayer, pair, { block });
      const now = await readSpendable(chain.rpc, dev.vaultRelayer, pair);
      assert.equal(then.amounts.get(ownerTokenKey(alice.address, dev.tokens.TKA))!.spendable, e18(40));
      assert.equal(now.amounts.get(ownerTokenKey(alice.address, dev.tokens.TKA))!.spendable, e18(10));
    });

    it('fails with a ChainError when the node cannot serve the block, rather than reading zeros', async () => {
      const pair = [{ owner: alice.address, token: dev.tokens.TKA }];
      await assert.rejects(readSpendable(chain.rpc, dev.vaultRelayer, pair, { block: 1_000_000 }), (err: Error) => err instanceof ChainError && /balanceOf/.test(err.message));
    });
  });

  describe('ChainBalances', () => {
    let alice: Wallet;
    let bob: Wallet;

    before(async () => {
      const trader = () => gasFundedWallet(chain.provider, chain);
      alice = await trader();
      bob = await trader();
      await fundTrader(dev.tokens.TKA, alice, e18(10), dev.vaultRelayer);
      await fundTrader(dev.tokens.TKB, bob, e18(20), dev.vaultRelayer);
    });

    it('reads the pairs of one turn in one batch and reuses an amount read at the current block', async () => {
      const erin = await gasFundedWallet(chain.provider, chain);
      await fundTrader(dev.tokens.TKA, erin, e18(10), dev.vaultRelayer);
      await fundTrader(dev.tokens.TKB, erin, e18(5), dev.vaultRelayer);
      const rpc = recordingRpc(chain.rpc);
      const balances = new ChainBalances(rpc, dev.vaultRelayer, logger, () => undefined);
      const [a, b, again] = await Promise.all([
        balances.fetch(erin.address, dev.tokens.TKA),
        balances.fetch(erin.address, dev.tokens.TKB),
        balances.fetch(erin.address, dev.tokens.TKA),
      ]);
      assert.deepEqual([a, b, again], [e18(10), e18(5), e18(10)]);
      assert.equal(rpc.batches.length, 1, 'one batch for the turn');
      assert.equal(rpc.batches[0].length, 4, 'two pairs, two calls each');
      const version = balances.version;

      // Same block: nothing read again.
      assert.equal(await balances.fetch(erin.address, dev.tokens.TKA), e18(10));
      assert.equal(rpc.batches.length, 1);

      // A new block: read again, and the change is seen.
      await mined(testToken(dev.tokens.TKA, erin).transfer(bob.address, e18(4)));
      assert.equal(await balances.fetch(erin.address, dev.tokens.TKA), e18(6));
      assert.equal(rpc.batches.length, 2);
      assert.ok(balances.version > version, 'a changed amount bumps the version');
      assert.equal(balances.get(erin.address, dev.tokens.TKA), e18(6));
    });

    it('a failed read fails the fetches of its turn only; the next turn reads again', async () => {
      // The node fails the head lookup once, as one that restarts would.
      let failNext = true;
      const flaky: ChainRpc = {
        call: (method, params) => {
          if (method === 'eth_blockNumber' && failNext) {
            failNext = false;
            return Promise.reject(new ChainError('the node went away'));
          }
          return chain.rpc.call(method, params);
        },
        batch: (calls) => chain.rpc.batch(calls),
      };
      const balances = new ChainBalances(flaky, dev.vaultRelayer, logger, () => undefined);
      const first = Promise.allSettled([balances.fetch(alice.address, dev.tokens.TKA), balances.fetch(bob.address, dev.tokens.TKB)]);
      await nextTurn();
      const next = await balances.fetch(bob.address, dev.tokens.TKB);
      assert.deepEqual((await first).map((r) => r.status === 'rejected' && (r.reason as Error).message), ['the node went away', 'the node went away']);
      assert.equal(next, e18(20));
    });

    it('reads a newly tracked pair at once, unless it was read since the latest head; re-reads all at a new head', async () => {
      const rpc = recordingRpc(chain.rpc);
      const balances = new ChainBalances(rpc, dev.vaultRelayer, logger, () => undefined);
      let changes = 0;
      balances.onChange(() => changes++);
      // track() asks for its reads at once; settled() waits for them to end, and for nothing when none was asked.
      const settle = () => balances.settled();

      // Order creation reads alice; tracking her right after reads nothing more.
      assert.equal(await balances.fetch(alice.address, dev.tokens.TKA), e18(10));
      assert.equal(rpc.batches.length, 1);
      balances.track([[alice.address, dev.tokens.TKA]]);
      await settle();
      assert.equal(rpc.batches.length, 1, 'alice was read since the latest head');

      // A pair never read (bob's, e.g. a presign order just presigned) is read alone, without a new block.
      balances.track([[alice.address, dev.tokens.TKA], [bob.address, dev.tokens.TKB]]);
      await settle();
      assert.deepEqual(rpc.batches.slice(1).map(ownersRead), [[bob.address.toLowerCase()]]);
      assert.equal(balances.get(bob.address, dev.tokens.TKB), e18(20));

      // A new head reads every tracked pair again, in one batch; a change is told to listeners.
      await mined(testToken(dev.tokens.TKA, alice).transfer(bob.address, e18(4)));
      const version = balances.version;
      await balances.refresh();
      assert.deepEqual(rpc.batches.at(-1)!.length, 4);
      assert.equal(balances.get(alice.address, dev.tokens.TKA), e18(6));
      assert.ok(balances.version > version && changes >= 1);

      // An amount read before the latest head is stale: tracking its pair again reads it again.
      balances.track([[bob.address, dev.tokens.TKB]]);
      await settle();
      const before = rpc.batches.length;
      await balances.refresh();
      balances.track([[bob.address, dev.tokens.TKB], [alice.address, dev.tokens.TKA]]);
      await settle();
      assert.deepEqual(rpc.batches.slice(before).map(ownersRead), [[bob.address.toLowerCase()], [alice.address.toLowerCase()]]);
    });

    it('atHead: the amount read at the reported head, none once another head is reported, even of the same number', async () => {
      let reported: number | undefined;
      const balances = new ChainBalances(chain.rpc, dev.vaultRelayer, logger, () => reported);
      const amount = await balances.fetch(bob.address, dev.tokens.TKB);
      const block = await chain.provider.getBlockNumber();
      assert.equal(balances.atHead(bob.address, dev.tokens.TKB), undefined, 'no head reported yet');
      reported = block;
      assert.equal(balances.atHead(bob.address, dev.tokens.TKB), amount);
      assert.equal(balances.atHead(alice.address, dev.tokens.TKB), undefined, 'a pair never read');

      // The head source reports a new head of the same number (a reorganisation): none until read again.
      const reading = balances.refresh();
      assert.equal(balances.atHead(bob.address, dev.tokens.TKB), undefined);
      await reading;
      assert.equal(await balances.fetch(bob.address, dev.tokens.TKB), amount);
      assert.equal(balances.atHead(bob.address, dev.tokens.TKB), amount);

      // A higher head reported: the amount read at the one before does not answer.
      reported = block + 1;
      assert.equal(balances.atHead(bob.address, dev.tokens.TKB), undefined);
    });

    it('coalesces refreshes asked for during a read instead of dropping them', async () => {
      // Batches wait at a gate, so that a read is surely in progress while the chain changes.
      let open: () => void = () => {};
      let gate: Promise<void> = Promise.resolve();
      let arrived: () => void = () => {};
      const rpc = recordingRpc(chain.rpc);
      const gated: ChainRpc = { call: rpc.call, batch: async (calls) => (arrived(), await gate, rpc.batch(calls)) };
      const balances = new ChainBalances(gated, dev.vaultRelayer, logger, () => undefined);
      balances.track([[alice.address, dev.tokens.TKA]]);
      await balances.refresh();
      const amount = balances.get(alice.address, dev.tokens.TKA)!;
      const before = rpc.batches.length;

      gate = new Promise((resolve) => (open = resolve));
      const atGate = new Promise<void>((resolve) => (arrived = resolve));
      const first = balances.refresh();
      await atGate; // the first read has its block and waits at the gate
      await mined(testToken(dev.tokens.TKA, alice).transfer(bob.address, e18(1)));
      const heads = [balances.refresh(), balances.refresh(), balances.refresh()];
      open();
      await Promise.all([first, ...heads]);
      assert.equal(balances.get(alice.address, dev.tokens.TKA), amount - e18(1), 'a refresh asked for during a read sees the new block');
      assert.equal(rpc.batches.length - before, 2, 'the three refreshes asked for during the first read make one more read');
    });

    it('a token that runs out of gas or hits INVALID leaves that pair unknown (0) alone, with every eth_call under the gas cap', async () => {
      const deployer = new Wallet(DEV_DEPLOYER.privateKey, chain.provider);
      const faulty = await deployFaultyToken(deployer);
      const token = (await faulty.getAddress()).toLowerCase();
      const carol = await gasFundedWallet(chain.provider, chain);
      const dave = await gasFundedWallet(chain.provider, chain);
      await fundTrader(token, carol, e18(5), dev.vaultRelayer);
      await fundTrader(token, dave, e18(6), dev.vaultRelayer);
      const rpc = recordingRpc(chain.rpc);
      const balances = new ChainBalances(rpc, dev.vaultRelayer, logger, () => undefined, 100_000);
      balances.track([[alice.address, dev.tokens.TKA], [carol.address, token], [dave.address, token]]);
      await balances.settled();
      assert.equal(balances.get(carol.address, token), e18(5));
      const aliceBefore = balances.get(alice.address, dev.tokens.TKA)!;

      await mined(faulty.setFault(carol.address, 1)); // balanceOf(carol) runs out of gas
      await mined(faulty.setFault(dave.address, 2)); // balanceOf(dave) hits INVALID
      await mined(testToken(dev.tokens.TKA, alice).transfer(bob.address, e18(1)));
      let changes = 0;
      balances.onChange(() => changes++);
      await balances.refresh();
      assert.equal(balances.get(alice.address, dev.tokens.TKA), aliceBefore - e18(1), "everyone else's refresh goes on");
      assert.equal(balances.get(carol.address, token), 0n, 'unknown counts as nothing spendable');
      assert.equal(balances.get(dave.address, token), 0n);
      assert.match(balances.unreadable(carol.address, token) ?? '', /OutOfGas|out of gas/i);
      assert.match(balances.unreadable(dave.address, token) ?? '', /Invalid|opcode/i);
      assert.equal(balances.unreadable(alice.address, dev.tokens.TKA), undefined);
      assert.ok(changes > 0);
      const calls = rpc.batches.flat().filter((c) => c.method === 'eth_call');
      assert.ok(calls.length > 0 && calls.every((c) => (c.params[0] as { gas?: string }).gas === '0x186a0'), 'every eth_call carries the cap');

      // Healed, the pair reads again at the next head.
      await mined(faulty.setFault(carol.address, 0));
      await balances.refresh();
      assert.equal(balances.get(carol.address, token), e18(5));
      assert.equal(balances.unreadable(carol.address, token), undefined);
      assert.equal(balances.get(dave.address, token), 0n);
    });
  });
});
