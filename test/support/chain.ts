/**
 * Dev chains for tests.
 * - startTestChain: a fresh anvil reached two ways, as a ChainRpc over the gateway's own HTTP upstream
 *   transport (the gateway's transport the order book uses in the service, here without a pool) and as an ethers JsonRpcProvider (a client).
 * - prepareChain: a chain put into a known state for gateway tests: the Probe contract
 *   (test/support/contracts) is compiled with solc and deployed, a plain transfer is sent and Probe is poked
 *   so that blocks, receipts and a log exist. Everything goes straight to the chain's own URL.
 */
import { ContractFactory, Interface, JsonRpcProvider, Wallet, Transaction, parseEther, toQuantity, type Contract } from 'ethers';
import { readFileSync } from 'node:fs';
import solc from 'solc';
import { repoPath } from '../../src/shared/paths.js';
import { Anvil } from '../../src/devchain/anvil.js';
import { HttpUpstream } from '../../src/gateway/upstream/http.js';
import { logger } from '../../src/shared/logger.js';
import { chainRpcOver, type ChainRpc } from '../../src/orderbook/chain/rpc.js';

/** anvil's funded dev accounts #0..#2, as anvil prints them at start. */
export const DEV_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
] as const;
export const DEV_ADDRESSES = [
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
] as const;

export interface Compiled {
  abi: any[];
  bytecode: string;
}

let probe: Compiled | undefined;

/** Probe.sol compiled by solc-js (once per process). */
export function compileProbe(): Compiled {
  if (probe) return probe;
  const input = {
    language: 'Solidity',
    sources: { 'Probe.sol': { content: readFileSync(repoPath('test/support/contracts/Probe.sol'), 'utf8') } },
    settings: { evmVersion: 'cancun', outputSelection: { '*': { Probe: ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`Probe.sol does not compile: ${errors.map((e: { message: string }) => e.message).join('; ')}`);
  const contract = output.contracts['Probe.sol'].Probe;
  probe = { abi: contract.abi, bytecode: '0x' + contract.evm.bytecode.object };
  return probe;
}

export const probeInterface = (): Interface => new Interface(compileProbe().abi);

/** A provider that does not poll or guess the network: tests destroy it when done. */
export function directProvider(url: string, chainId = 1): JsonRpcProvider {
  return new JsonRpcProvider(url, chainId, { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1 });
}

/** What prepareChain left on the chain, for building requests that hit real data. */
export interface PreparedChain {
  chainId: number;
  probe: string;
  deployTx: string;
  transferTx: string;
  pokeTx: string;
  pokeBlockHash: string;
  pokeBlockNumber: number;
  /** A signed transaction that is already mined: sending it again is an error. */
  minedRawTx: string;
}

export async function prepareChain(url: string, chainId = 1): Promise<PreparedChain> {
  const provider = directProvider(url, chainId);
  try {
    const wallet = new Wallet(DEV_KEYS[0], provider);
    const { abi, bytecode } = compileProbe();
    const contract = (await new ContractFactory(abi, bytecode, wallet).deploy()) as Contract;
    const deployed = await contract.deploymentTransaction()!.wait();
    const probeAddress = await contract.getAddress();

    const transfer = await wallet.sendTransaction({ to: DEV_ADDRESSES[1], value: parseEther('1.5') });
    await transfer.wait();

    const poke = await contract.getFunction('poke')(1234n);
    const pokeReceipt = await poke.wait();
    if (!deployed || !pokeReceipt || pokeReceipt.logs.length !== 1) throw new Error('chain preparation failed');

    return {
      chainId,
      probe: probeAddress.toLowerCase(),
      deployTx: deployed.hash,
      transferTx: transfer.hash,
      pokeTx: poke.hash,
      pokeBlockHash: pokeReceipt.blockHash,
      pokeBlockNumber: pokeReceipt.blockNumber,
      minedRawTx: Transaction.from(transfer).serialized,
    };
  } finally {
    provider.destroy();
  }
}

/** A signed transfer from `key` (nonce as given), ready for eth_sendRawTransaction. */
export async function signedTransfer(key: string, nonce: number, options: { chainId?: number; value?: bigint } = {}): Promise<string> {
  return new Wallet(key).signTransaction({
    type: 2,
    chainId: options.chainId ?? 1,
    nonce,
    to: DEV_ADDRESSES[2],
    value: options.value ?? 1000n,
    gasLimit: 21_000n,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
}

/**
 * A fresh wallet on `provider` holding `eth` (default 100 ETH) for gas, its balance set with anvil_setBalance
 * through `anvil` (anvil itself, also when the wallet's provider is the gateway).
 */
export async function gasFundedWallet(
  provider: JsonRpcProvider,
  anvil: { send(method: string, params: unknown[]): Promise<unknown> },
  eth = parseEther('100'),
): Promise<Wallet> {
  const wallet = new Wallet(Wallet.createRandom().privateKey, provider);
  await anvil.send('anvil_setBalance', [wallet.address, toQuantity(eth)]);
  return wallet;
}

export interface TestChain {
  anvil: Anvil;
  rpc: ChainRpc;
  provider: JsonRpcProvider;
  /** Any JSON-RPC call, e.g. anvil's evm_mine / evm_snapshot. */
  send(method: string, params?: unknown[]): Promise<any>;
  stop(): Promise<void>;
}

export async function startTestChain(options: { chainId?: number; args?: string[] } = {}): Promise<TestChain> {
  const chainId = options.chainId ?? 1;
  const anvil = new Anvil({ name: `chain-test-${chainId}`, chainId, logger, args: options.args });
  await anvil.start();
  const upstream = new HttpUpstream({ name: 'anvil', network: 'test', url: anvil.httpUrl, timeoutMs: 10_000 });
  const provider = new JsonRpcProvider(anvil.httpUrl, chainId, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 100 });
  return {
    anvil,
    rpc: chainRpcOver(upstream),
    provider,
    send: (method, params = []) => provider.send(method, params),
    async stop() {
      provider.destroy();
      await upstream.close();
      await anvil.stop();
    },
  };
}
