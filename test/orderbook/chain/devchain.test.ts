import assert from 'node:assert/strict';
import { Contract, type InterfaceAbi } from 'ethers';
import { gpv2Artifact } from '../../../src/contracts/artifacts.js';
import { bootstrapDevChain, devChainPlan, DEV_DEPLOYER, DEV_SOLVER, DEV_TOKENS, DEV_VAULT, type DevChain } from '../../../src/wiring/gpv2.js';
import { resolveSettlement } from '../../../src/orderbook/chain/settlement.js';
import { ChainError } from '../../../src/orderbook/chain/rpc.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { gpv2Domain } from '../../../src/orderbook/domain/eip712.js';
import { TypedDataEncoder } from 'ethers';

describe('dev chain bootstrap (anvil)', () => {
  let chain: TestChain;
  let other: TestChain | undefined;
  let devChain: DevChain;

  before(async () => {
    chain = await startTestChain({ chainId: 1 });
    devChain = await bootstrapDevChain(chain.rpc);
  });
  after(async () => {
    await chain?.stop();
    await other?.stop();
  });

  it('deploys the real GPv2 contracts at the planned CREATE2 addresses', async () => {
    const plan = devChainPlan();
    assert.equal(devChain.chainId, 1);
    assert.equal(devChain.authenticator, plan.authenticator.address);
    assert.equal(devChain.settlement, plan.settlement.address);
    assert.equal(devChain.vaultRelayer, plan.vaultRelayer);
    assert.deepEqual(Object.keys(devChain.tokens), DEV_TOKENS.map((t) => t.symbol));
    for (const address of [devChain.authenticator, devChain.settlement, devChain.vaultRelayer, ...Object.values(devChain.tokens)]) {
      assert.match(address, /^0x[0-9a-f]{40}$/);
      assert.notEqual(await chain.provider.getCode(address), '0x', `code at ${address}`);
    }
    // The deployed runtime code is the package's own GPv2Settlement (immutables aside, the length matches).
    const code = await chain.provider.getCode(devChain.settlement);
    assert.equal(code.length, gpv2Artifact('GPv2Settlement').deployedBytecode.length);
  });

  it('wires the settlement to the authenticator, the vault and a relayer, and allow-lists the solver', async () => {
    const settlement = new Contract(devChain.settlement, gpv2Artifact('GPv2Settlement').abi as InterfaceAbi, chain.provider);
    const auth = new Contract(devChain.authenticator, gpv2Artifact('GPv2AllowListAuthentication').abi as InterfaceAbi, chain.provider);
    assert.equal((await settlement.authenticator()).toLowerCase(), devChain.authenticator);
    assert.equal((await settlement.vault()).toLowerCase(), DEV_VAULT);
    assert.equal((await settlement.vaultRelayer()).toLowerCase(), devChain.vaultRelayer);
    assert.equal((await auth.manager()).toLowerCase(), DEV_DEPLOYER.address);
    assert.equal(await auth.isSolver(DEV_SOLVER.address), true);
    assert.equal(await auth.isSolver(DEV_DEPLOYER.address), false);
    assert.equal(devChain.solver, DEV_SOLVER.address);
  });

  it('reports the contract domain separator, equal to the EIP-712 domain of the spec', () => {
    assert.equal(devChain.domainSeparator, TypedDataEncoder.hashDomain(gpv2Domain(1, devChain.settlement)));
  });

  it('deploys test tokens with their name, symbol and decimals', async () => {
    for (const t of DEV_TOKENS) {
      const token = new Contract(devChain.tokens[t.symbol], gpv2Artifact('IERC20').abi as InterfaceAbi, chain.provider);
      const erc20 = new Contract(devChain.tokens[t.symbol], ['function name() view returns (string)', 'function symbol() view returns (string)', 'function decimals() view returns (uint8)'], chain.provider);
      assert.equal(await erc20.symbol(), t.symbol);
      assert.equal(await erc20.name(), t.name);
      assert.equal(Number(await erc20.decimals()), t.decimals);
      assert.equal(await token.balanceOf(DEV_DEPLOYER.address), 0n);
    }
  });

  it('does nothing on a chain that already has everything (a persisted chain)', async () => {
    const nonceBefore = await chain.provider.getTransactionCount(DEV_DEPLOYER.address);
    const blockBefore = await chain.provider.getBlockNumber();
    const again = await bootstrapDevChain(chain.rpc);
    assert.deepEqual(again, devChain);
    assert.equal(await chain.provider.getTransactionCount(DEV_DEPLOYER.address), nonceBefore);
    assert.equal(await chain.provider.getBlockNumber(), blockBefore);
  });

  it('gives the same addresses on another fresh chain, even when the deployer has sent transactions before', async () => {
    other = await startTestChain({ chainId: 1 });
    for (let i = 0; i < 3; i++) {
      await other.send('eth_sendTransaction', [{ from: DEV_DEPLOYER.address, to: DEV_SOLVER.address, value: '0x1' }]);
    }
    const second = await bootstrapDevChain(other.rpc);
    assert.deepEqual({ ...second }, { ...devChain });
  });

  it('resolveSettlement reads the vault relayer of a configured settlement contract', async () => {
    const resolved = await resolveSettlement(chain.rpc, devChain.settlement.toUpperCase().replace('0X', '0x'));
    assert.deepEqual(resolved, {
      chainId: 1,
      settlement: devChain.settlement,
      vaultRelayer: devChain.vaultRelayer,
      domainSeparator: devChain.domainSeparator,
    });
  });

  it('resolveSettlement fails clearly where there is no settlement contract', async () => {
    // The canonical address has no code on a fresh anvil; a token answers, but not as GPv2Settlement.
    await assert.rejects(resolveSettlement(chain.rpc), (err: Error) => err instanceof ChainError && /no settlement contract at 0x9008d19f/.test(err.message));
    await assert.rejects(resolveSettlement(chain.rpc, devChain.tokens.TKA), (err: Error) => err instanceof ChainError && /does not answer as GPv2Settlement/.test(err.message));
  });
});
