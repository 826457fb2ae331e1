/**
 * The GPv2 contracts of the embedded dev chain, deployed by the service itself (`bootstrapDevChain`): the real
 * GPv2AllowListAuthentication and GPv2Settlement from @cowprotocol/contracts (the settlement creates its
 * GPv2VaultRelayer), a solver on the allow list, and test ERC-20 tokens. Every contract is created through
 * the deterministic-deployment proxy with CREATE2 and the salt of CoW Protocol's own deployment scripts, so
 * the addresses depend on the bytecode alone: the same on every fresh chain and whatever the deployer's
 * nonce. Each step first checks whether its effect is already on the chain, so a persisted chain (or one
 * whose bootstrap was interrupted) is completed, never deployed twice.
 * The order book gets the result through its chain port's dev-chain hook (src/orderbook/chain/port.ts);
 * on an external upstream it resolves the settlement contract itself (src/orderbook/chain/settlement.ts).
 */
import {
  AbiCoder,
  Contract,
  Wallet,
  concat,
  encodeBytes32String,
  getCreate2Address,
  getCreateAddress,
  keccak256,
  type InterfaceAbi,
} from 'ethers';
import { gpv2Artifact, localArtifact, type Artifact } from '../contracts/artifacts.js';
import { logger as rootLogger } from '../shared/logger.js';
import { ChainRpcProvider } from '../orderbook/chain/ethers-provider.js';
import { ChainError, fromQuantity, type ChainRpc } from '../orderbook/chain/rpc.js';
import { resolveSettlement, type SettlementDeployment } from '../orderbook/chain/settlement.js';

/** Anvil's dev account #0: deploys everything and manages the allow list. */
export const DEV_DEPLOYER = {
  address: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
} as const;

/** Anvil's dev account #1: the allow-listed solver. */
export const DEV_SOLVER = {
  address: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
} as const;

/** Arachnid's deterministic-deployment proxy; anvil has it in its genesis state. */
const CREATE2_FACTORY = '0x4e59b44847b379578588920ca78fbf26c0b4956c';

/** The CREATE2 salt of @cowprotocol/contracts' deployment scripts (src/ts/deploy.ts). */
const GPV2_SALT = encodeBytes32String('Mattresses in Berlin!');

/**
 * The Balancer V2 Vault's address (the same on every network Balancer is on). On a dev chain nothing lives
 * there: GPv2Settlement only calls the vault for orders with `external`/`internal` token balances, which
 * then fail on chain, while `erc20` balances (the default) go through the vault relayer and the tokens.
 */
export const DEV_VAULT = '0xba12222222228d8ba445958a75a0704d566bf2c8';

export interface DevToken {
  symbol: string;
  name: string;
  decimals: number;
}

export const DEV_TOKENS: readonly DevToken[] = [
  { symbol: 'TKA', name: 'Test Token A', decimals: 18 },
  { symbol: 'TKB', name: 'Test Token B', decimals: 18 },
  { symbol: 'TKC', name: 'Test Token C', decimals: 6 },
];

export interface DevChain extends SettlementDeployment {
  authenticator: string;
  /** The authenticator's manager (dev account #0). */
  manager: string;
  solver: string;
  /** symbol → token address. */
  tokens: Record<string, string>;
}

/** Addresses are lowercase throughout the order book. */
const lower = (address: string) => address.toLowerCase();

function creationCode(artifact: Artifact, types: string[] = [], args: unknown[] = []): string {
  return concat([artifact.bytecode, AbiCoder.defaultAbiCoder().encode(types, args)]);
}

interface PlannedContract {
  label: string;
  address: string;
  initCode: string;
}

function planned(label: string, initCode: string): PlannedContract {
  return { label, initCode, address: lower(getCreate2Address(CREATE2_FACTORY, GPV2_SALT, keccak256(initCode))) };
}

/** The contracts of a dev chain and their addresses, computed without a chain. */
export function devChainPlan() {
  const authenticator = planned('GPv2AllowListAuthentication', creationCode(gpv2Artifact('GPv2AllowListAuthentication')));
  const settlement = planned(
    'GPv2Settlement',
    creationCode(gpv2Artifact('GPv2Settlement'), ['address', 'address'], [authenticator.address, DEV_VAULT]),
  );
  // The settlement's constructor creates the relayer: the first CREATE of a contract uses nonce 1 (EIP-161).
  const vaultRelayer = lower(getCreateAddress({ from: settlement.address, nonce: 1 }));
  const tokens = DEV_TOKENS.map((t) => ({
    ...t,
    ...planned(t.symbol, creationCode(localArtifact('TestERC20'), ['string', 'string', 'uint8'], [t.name, t.symbol, t.decimals])),
  }));
  return { authenticator, settlement, vaultRelayer, tokens };
}

async function hasCode(rpc: ChainRpc, address: string): Promise<boolean> {
  const code = await rpc.call('eth_getCode', [address, 'latest']);
  return typeof code === 'string' && code !== '0x' && code !== '0x0';
}

export async function bootstrapDevChain(rpc: ChainRpc): Promise<DevChain> {
  const log = rootLogger.child({ component: 'devchain' });
  const chainId = fromQuantity(await rpc.call('eth_chainId', []), 'eth_chainId');
  if (!(await hasCode(rpc, CREATE2_FACTORY))) {
    throw new ChainError(`the dev chain has no deterministic-deployment proxy at ${CREATE2_FACTORY}`);
  }
  const provider = new ChainRpcProvider(rpc, chainId);
  try {
    const deployer = new Wallet(DEV_DEPLOYER.privateKey, provider);
    const plan = devChainPlan();

    const send = async (what: string, tx: Promise<{ wait(): Promise<unknown> }>) => {
      try {
        await (await tx).wait();
      } catch (err) {
        throw new ChainError(`dev chain bootstrap: ${what} failed: ${(err as Error).message}`, undefined, { cause: err });
      }
    };
    const deploy = async (contract: PlannedContract) => {
      if (await hasCode(rpc, contract.address)) return;
      await send(`deploying ${contract.label}`, deployer.sendTransaction({ to: CREATE2_FACTORY, data: concat([GPV2_SALT, contract.initCode]) }));
      if (!(await hasCode(rpc, contract.address))) {
        throw new ChainError(`dev chain bootstrap: ${contract.label} is not at ${contract.address} after its deployment`);
      }
      log.info({ contract: contract.label, address: contract.address }, 'deployed');
    };

    await deploy(plan.authenticator);
    const authenticator = new Contract(plan.authenticator.address, gpv2Artifact('GPv2AllowListAuthentication').abi as InterfaceAbi, deployer);
    const manager = lower(await authenticator.manager());
    if (manager === '0x0000000000000000000000000000000000000000') {
      await send('initializeManager', authenticator.initializeManager(DEV_DEPLOYER.address));
    } else if (manager !== DEV_DEPLOYER.address) {
      throw new ChainError(`dev chain bootstrap: the authenticator's manager is ${manager}, not the dev deployer`);
    }
    if (!(await authenticator.isSolver(DEV_SOLVER.address))) {
      await send('addSolver', authenticator.addSolver(DEV_SOLVER.address));
    }

    await deploy(plan.settlement);
    for (const token of plan.tokens) await deploy(token);

    const deployment = await resolveSettlement(rpc, plan.settlement.address);
    if (deployment.vaultRelayer !== plan.vaultRelayer) {
      throw new ChainError(`dev chain bootstrap: vault relayer ${deployment.vaultRelayer}, expected ${plan.vaultRelayer}`);
    }
    return {
      ...deployment,
      authenticator: plan.authenticator.address,
      manager: DEV_DEPLOYER.address,
      solver: DEV_SOLVER.address,
      tokens: Object.fromEntries(plan.tokens.map((t) => [t.symbol, t.address])),
    };
  } finally {
    provider.destroy();
  }
}

