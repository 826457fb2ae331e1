/**
 * The GPv2 contracts of the embedded dev chain, deployed by the service itself (`bootstrapDevChain`) the way
 * CoW Protocol deployed them on mainnet, so that every address (and, on chain id 1, the EIP-712 domain
 * separator) is mainnet's and clients such as the CoW SDK work with their defaults:
 * - GPv2AllowListAuthentication behind its proxy, and GPv2Settlement (which creates its GPv2VaultRelayer),
 *   from the exact creation code and constructor arguments of @cowprotocol/contracts'
 *   `deployments/mainnet/*.json`, sent through the deterministic-deployment proxy anvil has in its genesis
 *   state with the deployment's CREATE2 salt. The authenticator's manager is mainnet's, as the proxy's
 *   constructor initialises it; the dev solver is put on the allow list by impersonating that manager on
 *   anvil (anvil's own JSON-RPC, not the gateway's relay, which serves no dev-chain methods).
 * - Test ERC-20 tokens (contracts/TestERC20.sol), created the same way, with a built-in price each.
 * Each step first checks whether its effect is already on the chain, so a persisted chain (or one whose
 * bootstrap was interrupted) is completed, never deployed twice.
 * The order book gets the result through its chain port's dev-chain hook (src/orderbook/chain/port.ts);
 * on an external upstream it resolves the settlement contract itself (src/orderbook/chain/settlement.ts).
 */
import {
  AbiCoder,
  Contract,
  Interface,
  JsonRpcProvider,
  JsonRpcSigner,
  Wallet,
  concat,
  encodeBytes32String,
  getAddress,
  getCreate2Address,
  getCreateAddress,
  keccak256,
  toQuantity,
  type InterfaceAbi,
  type JsonRpcApiProvider,
} from 'ethers';
import { gpv2MainnetDeployment, localArtifact, type Artifact, type Gpv2MainnetDeploymentName } from '../contracts/artifacts.js';
import { logger as rootLogger } from '../shared/logger.js';
import { ChainRpcProvider } from '../orderbook/chain/ethers-provider.js';
import { ChainError, fromQuantity, type ChainRpc } from '../orderbook/chain/rpc.js';
import { resolveSettlement, type SettlementDeployment } from '../orderbook/chain/settlement.js';

/** Anvil's dev account #0: sends the deployments (any account could: CREATE2 addresses do not depend on it). */
export const DEV_DEPLOYER = {
  address: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
} as const;

/** Anvil's dev account #1: the allow-listed solver. */
export const DEV_SOLVER = {
  address: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
} as const;

/** Arachnid's deterministic-deployment proxy; anvil has it in its genesis state. Mainnet's GPv2 went through it. */
const CREATE2_FACTORY = '0x4e59b44847b379578588920ca78fbf26c0b4956c';

/** The CREATE2 salt of @cowprotocol/contracts' deployment scripts (src/ts/deploy.ts), mainnet's included. */
const GPV2_SALT = encodeBytes32String('Mattresses in Berlin!');

/**
 * The Balancer V2 Vault's address, GPv2Settlement's second constructor argument on mainnet. On a dev chain
 * nothing lives there: the settlement only calls the vault for orders with `external`/`internal` token
 * balances, which then fail on chain, while `erc20` balances (the default) go through the vault relayer.
 */
export const DEV_VAULT = '0xba12222222228d8ba445958a75a0704d566bf2c8';

export interface DevToken {
  symbol: string;
  name: string;
  decimals: number;
  /**
   * Its built-in price in native-token wei per base unit (TOKEN_PRICES' unit and format), so that quotes,
   * fees and native prices answer on the dev chain with no configuration; TOKEN_PRICES overrides it. A
   * table rather than pools with reserves: the dev chain has no native-token ERC-20 to pair with and no
   * pool to trade against (contracts/TestUniswapV2Pair.sol only reports reserves), and fixed prices keep
   * quotes the same on every fresh chain.
   */
  price: string;
}

/** 1 TKA = 0.001 ETH, 1 TKB = 0.002 ETH, 1 TKC = 0.0005 ETH: 1 TKB = 2 TKA = 4 TKC. */
export const DEV_TOKENS: readonly DevToken[] = [
  { symbol: 'TKA', name: 'Test Token A', decimals: 18, price: '0.001' },
  { symbol: 'TKB', name: 'Test Token B', decimals: 18, price: '0.002' },
  { symbol: 'TKC', name: 'Test Token C', decimals: 6, price: '500000000' },
];

export interface DevChain extends SettlementDeployment {
  /** The authenticator (its proxy's address, as on mainnet). */
  authenticator: string;
  /** The authenticator's manager: mainnet's, as the proxy's constructor set it. */
  manager: string;
  solver: string;
  /** symbol → token address. */
  tokens: Record<string, string>;
  /** token address → built-in price (DevToken.price). */
  tokenPrices: Record<string, string>;
}

export interface DevChainOptions {
  /**
   * The dev chain's own JSON-RPC URL (the embedded anvil's), for anvil_impersonateAccount, anvil_setBalance
   * and the impersonated manager's transaction. Without it they go through `rpc`, which must then reach
   * anvil itself (tests).
   */
  controlUrl?: string;
}

/** Addresses are lowercase throughout the order book. */
const lower = (address: string) => address.toLowerCase();

function creationCode(artifact: Pick<Artifact, 'bytecode' | 'abi'>, args: readonly unknown[] = []): string {
  const types = new Interface(artifact.abi as InterfaceAbi).deploy.inputs;
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

/** A contract of mainnet's GPv2 deployment, at the address its record says (or the package is not what we think). */
function mainnetContract(name: Gpv2MainnetDeploymentName): PlannedContract {
  const record = gpv2MainnetDeployment(name);
  const contract = planned(name, creationCode(record, record.args));
  if (contract.address !== lower(record.address)) {
    throw new Error(`${name}: CREATE2 gives ${contract.address}, not mainnet's ${record.address}: the deployment record is not mainnet's`);
  }
  return contract;
}

const authenticatorInterface = () => new Interface(gpv2MainnetDeployment('GPv2AllowListAuthentication_Implementation').abi as InterfaceAbi);

/** The contracts of a dev chain and their addresses, computed without a chain. */
export function devChainPlan() {
  const implementation = mainnetContract('GPv2AllowListAuthentication_Implementation');
  const authenticator = mainnetContract('GPv2AllowListAuthentication_Proxy');
  const settlement = mainnetContract('GPv2Settlement');
  // The proxy's constructor delegatecalls its third argument, initializeManager(manager).
  const [, , initData] = gpv2MainnetDeployment('GPv2AllowListAuthentication_Proxy').args as [string, string, string];
  const init = authenticatorInterface().parseTransaction({ data: initData });
  if (init?.name !== 'initializeManager') throw new Error('the authenticator proxy is not initialised with initializeManager');
  const manager = lower(init.args[0] as string);
  // The settlement's constructor creates the relayer: the first CREATE of a contract uses nonce 1 (EIP-161).
  const vaultRelayer = lower(getCreateAddress({ from: settlement.address, nonce: 1 }));
  const tokens = DEV_TOKENS.map((t) => ({
    ...t,
    ...planned(t.symbol, creationCode(localArtifact('TestERC20'), [t.name, t.symbol, t.decimals])),
  }));
  return { implementation, authenticator, manager, settlement, vaultRelayer, tokens };
}

async function hasCode(rpc: ChainRpc, address: string): Promise<boolean> {
  const code = await rpc.call('eth_getCode', [address, 'latest']);
  return typeof code === 'string' && code !== '0x' && code !== '0x0';
}

/** What the manager needs for its one transaction, given on anvil when it has less. */
const MANAGER_GAS_MONEY = 10n ** 18n;

export async function bootstrapDevChain(rpc: ChainRpc, options: DevChainOptions = {}): Promise<DevChain> {
  const log = rootLogger.child({ component: 'devchain' });
  const chainId = fromQuantity(await rpc.call('eth_chainId', []), 'eth_chainId');
  if (!(await hasCode(rpc, CREATE2_FACTORY))) {
    throw new ChainError(`the dev chain has no deterministic-deployment proxy at ${CREATE2_FACTORY}`);
  }
  const provider = new ChainRpcProvider(rpc, chainId);
  const send = async (what: string, tx: Promise<{ wait(): Promise<unknown> }>) => {
    try {
      await (await tx).wait();
    } catch (err) {
      throw new ChainError(`dev chain bootstrap: ${what} failed: ${(err as Error).message}`, undefined, { cause: err });
    }
  };
  try {
    const deployer = new Wallet(DEV_DEPLOYER.privateKey, provider);
    const plan = devChainPlan();

    const deploy = async (contract: PlannedContract) => {
      if (await hasCode(rpc, contract.address)) return;
      await send(`deploying ${contract.label}`, deployer.sendTransaction({ to: CREATE2_FACTORY, data: concat([GPV2_SALT, contract.initCode]) }));
      if (!(await hasCode(rpc, contract.address))) {
        throw new ChainError(`dev chain bootstrap: ${contract.label} is not at ${contract.address} after its deployment`);
      }
      log.info({ contract: contract.label, address: contract.address }, 'deployed');
    };

    await deploy(plan.implementation);
    await deploy(plan.authenticator);
    const authenticator = new Contract(plan.authenticator.address, authenticatorInterface(), provider);
    const manager = lower(await authenticator.manager());
    if (manager !== plan.manager) {
      throw new ChainError(`dev chain bootstrap: the authenticator's manager is ${manager}, not mainnet's ${plan.manager}`);
    }
    if (!(await authenticator.isSolver(DEV_SOLVER.address))) {
      const control = options.controlUrl
        ? new JsonRpcProvider(options.controlUrl, chainId, { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1, pollingInterval: 250 })
        : provider;
      try {
        await addSolverAsManager(control, plan.authenticator.address, manager, send);
      } finally {
        if (control !== provider) control.destroy();
      }
      if (!(await authenticator.isSolver(DEV_SOLVER.address))) throw new ChainError('dev chain bootstrap: the dev solver is not on the allow list after addSolver');
      log.info({ solver: DEV_SOLVER.address }, 'dev solver allow-listed');
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
      manager,
      solver: DEV_SOLVER.address,
      tokens: Object.fromEntries(plan.tokens.map((t) => [t.symbol, t.address])),
      tokenPrices: Object.fromEntries(plan.tokens.map((t) => [t.address, t.price])),
    };
  } finally {
    provider.destroy();
  }
}

/** addSolver(DEV_SOLVER) sent by the manager, impersonated on anvil (given gas money when it has too little). */
async function addSolverAsManager(
  control: JsonRpcApiProvider,
  authenticator: string,
  manager: string,
  send: (what: string, tx: Promise<{ wait(): Promise<unknown> }>) => Promise<void>,
): Promise<void> {
  const balance = BigInt(await control.send('eth_getBalance', [manager, 'latest']));
  if (balance < MANAGER_GAS_MONEY) await control.send('anvil_setBalance', [manager, toQuantity(MANAGER_GAS_MONEY)]);
  await control.send('anvil_impersonateAccount', [manager]);
  try {
    const signer = new JsonRpcSigner(control, getAddress(manager));
    const data = authenticatorInterface().encodeFunctionData('addSolver', [DEV_SOLVER.address]);
    await send('addSolver (as the impersonated manager)', signer.sendTransaction({ to: authenticator, data }));
  } finally {
    await control.send('anvil_stopImpersonatingAccount', [manager]);
  }
}
