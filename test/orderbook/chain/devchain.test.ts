/**
 * The dev chain bootstrap on real anvils: mainnet's GPv2 deployment repeated (same creation code, arguments,
 * factory and salt), so the settlement, vault relayer, authenticator and, on chain id 1, the domain
 * separator are mainnet's; the dev solver allow-listed by the impersonated mainnet manager through anvil's
 * own URL; a persisted or half-bootstrapped chain completed, never deployed twice.
 */
import assert from 'node:assert/strict';
import { Contract, Interface, TypedDataEncoder, toQuantity, type InterfaceAbi } from 'ethers';
import { gpv2Artifact, gpv2MainnetDeployment } from '../../../src/contracts/artifacts.js';
import { bootstrapDevChain, devChainPlan, DEV_DEPLOYER, DEV_SOLVER, DEV_TOKENS, DEV_VAULT, type DevChain } from '../../../src/wiring/gpv2.js';
import { resolveSettlement } from '../../../src/orderbook/chain/settlement.js';
import { ChainError, type ChainRpc } from '../../../src/orderbook/chain/rpc.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { gpv2Domain } from '../../../src/orderbook/domain/eip712.js';

/** Mainnet's, as CoW Protocol documents them. */
const MAINNET = {
  settlement: '0x9008d19f58aabd9ed0d60971565aa8510560ab41',
  vaultRelayer: '0xc92e8bdf79f0507f65a392b0ab4667716bfe0110',
  authenticator: '0x2c4c28ddbdac9c5e7055b4c863b72ea0149d8afe',
  implementation: '0x9e7ae8bdba9aa346739792d219a808884996db67',
  manager: '0x6fb5916c0f57f88004d5b5eb25f6f4d77353a1ed',
  domainSeparator: '0xc078f884a2676e1345748b1feace7b0abee5d00ecadb6e574dcdd109a63e8943',
};

const authAbi = () => gpv2MainnetDeployment('GPv2AllowListAuthentication_Implementation').abi as InterfaceAbi;
const proxyAbi = () => gpv2MainnetDeployment('GPv2AllowListAuthentication_Proxy').abi as InterfaceAbi;

/** `rpc` refusing anvil's own methods and sending transactions, as a relay that serves none of them would. */
function withoutDevMethods(rpc: ChainRpc, refused: string[]): ChainRpc {
  const check = (method: string) => {
    if (/^anvil_/.test(method) || method === 'eth_sendTransaction') {
      refused.push(method);
      throw new ChainError(`${method} is not relayed`);
    }
  };
  return {
    call: async (method, params) => (check(method), rpc.call(method, params)),
    batch: async (calls) => (calls.forEach((c) => check(c.method)), rpc.batch(calls)),
  };
}

describe('dev chain bootstrap (anvil)', () => {
  let chain: TestChain;
  let devChain: DevChain;
  const others: TestChain[] = [];
  const fresh = async (chainId: number) => {
    const c = await startTestChain({ chainId });
    others.push(c);
    return c;
  };

  before(async () => {
    chain = await startTestChain({ chainId: 1 });
    devChain = await bootstrapDevChain(chain.rpc, { controlUrl: chain.anvil.httpUrl });
  });
  after(async () => {
    await chain?.stop();
    for (const c of others) await c.stop();
  });

  it("deploys GPv2 at mainnet's addresses, with mainnet's code", async () => {
    const plan = devChainPlan();
    assert.equal(devChain.chainId, 1);
    assert.equal(devChain.settlement, MAINNET.settlement);
    assert.equal(devChain.vaultRelayer, MAINNET.vaultRelayer);
    assert.equal(devChain.authenticator, MAINNET.authenticator);
    assert.equal(plan.implementation.address, MAINNET.implementation);
    // The authenticator's implementation and proxy have no immutables: their code is mainnet's, byte for byte.
    for (const name of ['GPv2AllowListAuthentication_Implementation', 'GPv2AllowListAuthentication_Proxy'] as const) {
      const record = gpv2MainnetDeployment(name);
      assert.equal(await chain.provider.getCode(record.address), record.deployedBytecode, name);
    }
    // The settlement's immutables (authenticator, vault, relayer, domain separator) are filled in at creation.
    const code = await chain.provider.getCode(devChain.settlement);
    assert.equal(code.length, gpv2Artifact('GPv2Settlement').deployedBytecode.length);
    assert.deepEqual(Object.keys(devChain.tokens), DEV_TOKENS.map((t) => t.symbol));
    for (const address of Object.values(devChain.tokens)) {
      assert.match(address, /^0x[0-9a-f]{40}$/);
      assert.notEqual(await chain.provider.getCode(address), '0x', `code at ${address}`);
    }
  });

  it("has mainnet's domain separator on chain id 1, read from the contract", async () => {
    const settlement = new Contract(devChain.settlement, gpv2Artifact('GPv2Settlement').abi as InterfaceAbi, chain.provider);
    assert.equal(await settlement.domainSeparator(), MAINNET.domainSeparator);
    assert.equal(devChain.domainSeparator, MAINNET.domainSeparator);
    assert.equal(TypedDataEncoder.hashDomain(gpv2Domain(1, devChain.settlement)), MAINNET.domainSeparator);
  });

  it("wires the settlement to the authenticator proxy and Balancer's vault; mainnet's manager allow-lists the dev solver", async () => {
    const settlement = new Contract(devChain.settlement, gpv2Artifact('GPv2Settlement').abi as InterfaceAbi, chain.provider);
    const auth = new Contract(devChain.authenticator, authAbi(), chain.provider);
    const proxy = new Contract(devChain.authenticator, proxyAbi(), chain.provider);
    assert.equal((await settlement.authenticator()).toLowerCase(), MAINNET.authenticator);
    assert.equal((await settlement.vault()).toLowerCase(), DEV_VAULT);
    assert.equal((await settlement.vaultRelayer()).toLowerCase(), MAINNET.vaultRelayer);
    assert.equal((await auth.manager()).toLowerCase(), MAINNET.manager);
    assert.equal((await proxy.owner()).toLowerCase(), MAINNET.manager);
    assert.equal(devChain.manager, MAINNET.manager);
    assert.equal(await auth.isSolver(DEV_SOLVER.address), true);
    assert.equal(await auth.isSolver(DEV_DEPLOYER.address), false);
    assert.equal(devChain.solver, DEV_SOLVER.address);
  });

  it('stops impersonating the manager once the solver is added', async () => {
    const removeSolver = new Interface(authAbi()).encodeFunctionData('removeSolver', [DEV_SOLVER.address]);
    await assert.rejects(chain.send('eth_sendTransaction', [{ from: MAINNET.manager, to: devChain.authenticator, data: removeSolver }]));
  });

  it('deploys test tokens with their name, symbol, decimals and a built-in price', async () => {
    for (const t of DEV_TOKENS) {
      const erc20 = new Contract(
        devChain.tokens[t.symbol],
        ['function name() view returns (string)', 'function symbol() view returns (string)', 'function decimals() view returns (uint8)', 'function totalSupply() view returns (uint256)'],
        chain.provider,
      );
      assert.equal(await erc20.symbol(), t.symbol);
      assert.equal(await erc20.name(), t.name);
      assert.equal(Number(await erc20.decimals()), t.decimals);
      assert.equal(await erc20.totalSupply(), 0n, 'nobody holds dev tokens until they mint them');
      assert.equal(devChain.tokenPrices[devChain.tokens[t.symbol]], t.price);
    }
  });

  it('does nothing on a chain that already has everything (a persisted chain)', async () => {
    const nonceBefore = await chain.provider.getTransactionCount(DEV_DEPLOYER.address);
    const blockBefore = await chain.provider.getBlockNumber();
    const again = await bootstrapDevChain(chain.rpc, { controlUrl: chain.anvil.httpUrl });
    assert.deepEqual(again, devChain);
    assert.equal(await chain.provider.getTransactionCount(DEV_DEPLOYER.address), nonceBefore);
    assert.equal(await chain.provider.getBlockNumber(), blockBefore);
  });

  it('completes a chain whose bootstrap was cut short, deploying only what is missing', async () => {
    const c = await fresh(1);
    await bootstrapDevChain(c.rpc, { controlUrl: c.anvil.httpUrl });
    // Take the solver off the list and a token's code away, as if the bootstrap had stopped before them.
    const removeSolver = new Interface(authAbi()).encodeFunctionData('removeSolver', [DEV_SOLVER.address]);
    await c.send('anvil_impersonateAccount', [MAINNET.manager]);
    await c.provider.waitForTransaction(await c.send('eth_sendTransaction', [{ from: MAINNET.manager, to: devChain.authenticator, data: removeSolver }]));
    await c.send('anvil_stopImpersonatingAccount', [MAINNET.manager]);
    const tkc = devChain.tokens.TKC;
    await c.send('anvil_setCode', [tkc, '0x']);
    await c.send('anvil_setNonce', [tkc, toQuantity(0)]);
    const auth = new Contract(devChain.authenticator, authAbi(), c.provider);
    assert.equal(await auth.isSolver(DEV_SOLVER.address), false);

    const nonceBefore = await c.provider.getTransactionCount(DEV_DEPLOYER.address);
    const completed = await bootstrapDevChain(c.rpc, { controlUrl: c.anvil.httpUrl });
    assert.deepEqual(completed, devChain);
    assert.equal(await auth.isSolver(DEV_SOLVER.address), true);
    assert.notEqual(await c.provider.getCode(tkc), '0x');
    assert.equal(await c.provider.getTransactionCount(DEV_DEPLOYER.address), nonceBefore + 1, 'one deployment: the missing token');
  });

  it('sends the dev-chain methods to the control URL only, never through the relayed rpc', async () => {
    const c = await fresh(1);
    const refused: string[] = [];
    const relayed = withoutDevMethods(c.rpc, refused);
    assert.deepEqual(await bootstrapDevChain(relayed, { controlUrl: c.anvil.httpUrl }), devChain);
    assert.deepEqual(refused, []);
    // Without the control URL the same calls go through the rpc, which refuses them here.
    const d = await fresh(1);
    await assert.rejects(bootstrapDevChain(withoutDevMethods(d.rpc, refused)), ChainError);
    assert.ok(refused.length > 0 && refused.every((m) => /^anvil_/.test(m) || m === 'eth_sendTransaction'), refused.join());
  });

  it("gives the same addresses on another network's chain id (kovan, 42), with that chain's domain separator", async () => {
    const kovan = await fresh(42);
    for (let i = 0; i < 3; i++) {
      await kovan.send('eth_sendTransaction', [{ from: DEV_DEPLOYER.address, to: DEV_SOLVER.address, value: '0x1' }]);
    }
    const deployed = await bootstrapDevChain(kovan.rpc, { controlUrl: kovan.anvil.httpUrl });
    const { chainId, domainSeparator, ...addresses } = deployed;
    const { chainId: _1, domainSeparator: mainnetSeparator, ...mainnetAddresses } = devChain;
    assert.equal(chainId, 42);
    assert.deepEqual(addresses, mainnetAddresses);
    assert.equal(domainSeparator, TypedDataEncoder.hashDomain(gpv2Domain(42, MAINNET.settlement)));
    assert.notEqual(domainSeparator, mainnetSeparator);
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
    // The canonical address has no code on a chain nobody bootstrapped; a token answers, but not as GPv2Settlement.
    const bare = await fresh(1);
    await assert.rejects(resolveSettlement(bare.rpc), (err: Error) => err instanceof ChainError && /no settlement contract at 0x9008d19f/.test(err.message));
    await assert.rejects(resolveSettlement(chain.rpc, devChain.tokens.TKA), (err: Error) => err instanceof ChainError && /does not answer as GPv2Settlement/.test(err.message));
  });
});
