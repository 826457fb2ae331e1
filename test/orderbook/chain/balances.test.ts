import assert from 'node:assert/strict';
import { MaxUint256, Wallet } from 'ethers';
import { readSpendable, ownerTokenKey } from '../../../src/orderbook/chain/balances.js';
import { bootstrapDevChain, type DevChain } from '../../../src/wiring/gpv2.js';
import { ChainError, type ChainRpc, type RpcCall } from '../../../src/orderbook/chain/rpc.js';
import { ChainBalances } from '../../../src/orderbook/chain/live.js';
import { logger } from '../../../src/shared/logger.js';
import { gasFundedWallet, startTestChain, type TestChain } from '../../support/chain.js';
import { deployEip1271Wallet, eip1271Wallet, fundTrader, mined, testToken } from '../../support/solver.js';
import { e18 } from '../../support/onchain.js';


/** The same RPC, recording the batches sent. */
function recordingRpc(rpc: ChainRpc): ChainRpc & { batches: RpcCall[][] } {
  const batches: RpcCall[][] = [];
  return { batches, call: (m, p) => rpc.call(m, p), batch: (calls) => (batches.push(calls), rpc.batch(calls)) };
}

describe('spendable balances (anvil)', () => {
  let chain: TestChain;
  let dev: DevChain;
  let alice: Wallet;
  let bob: Wallet;
  let wallet: string;

  before(async () => {
    chain = await startTestChain({ chainId: 1 });
    dev = await bootstrapDevChain(chain.rpc);
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
  after(() => chain?.stop());

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

  it('ChainBalances reads pairs of one tick in one batch and reuses an amount read at the current block', async () => {
    const rpc = recordingRpc(chain.rpc);
    const balances = new ChainBalances(rpc, dev.vaultRelayer, logger, () => undefined);
    const [a, b, again] = await Promise.all([
      balances.fetch(alice.address, dev.tokens.TKA),
      balances.fetch(alice.address, dev.tokens.TKB),
      balances.fetch(alice.address, dev.tokens.TKA),
    ]);
    assert.deepEqual([a, b, again], [e18(10), e18(5), e18(10)]);
    assert.equal(rpc.batches.length, 1, 'one batch for the tick');
    assert.equal(rpc.batches[0].length, 4, 'two pairs, two calls each');
    const version = balances.version;

    // Same block: nothing read again.
    assert.equal(await balances.fetch(alice.address, dev.tokens.TKA), e18(10));
    assert.equal(rpc.batches.length, 1);

    // A new block: read again, and the change is seen.
    await mined(testToken(dev.tokens.TKA, alice).transfer(bob.address, e18(4)));
    assert.equal(await balances.fetch(alice.address, dev.tokens.TKA), e18(6));
    assert.equal(rpc.batches.length, 2);
    assert.ok(balances.version > version, 'a changed amount bumps the version');
    assert.equal(balances.get(alice.address, dev.tokens.TKA), e18(6));
  });

  it('fails with a ChainError when the node cannot serve the block, rather than reading zeros', async () => {
    const pair = [{ owner: alice.address, token: dev.tokens.TKA }];
    await assert.rejects(readSpendable(chain.rpc, dev.vaultRelayer, pair, { block: 1_000_000 }), (err: Error) => err instanceof ChainError && /balanceOf/.test(err.message));
  });
});
