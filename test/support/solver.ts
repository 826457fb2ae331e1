/**
 * A test solver and trader helpers for the real GPv2Settlement on anvil, with ethers v6 as the client.
 *
 * Order hashing here is test-side only (ethers' TypedDataEncoder over the domain module's Order type, and
 * solidityPacked for the UID), a second computation beside the production one in the order domain.
 */
import {
  Contract,
  ContractFactory,
  TypedDataEncoder,
  Wallet,
  ZeroAddress,
  concat,
  getBytes,
  solidityPacked,
  type ContractTransactionResponse,
  type InterfaceAbi,
  type Provider,
  type Signer,
  type TransactionReceipt,
  type TypedDataDomain,
} from 'ethers';
import { gpv2Artifact, localArtifact } from '../../src/contracts/artifacts.js';
import { DEV_SOLVER, type DevChain } from '../../src/wiring/gpv2.js';
import { ORDER_TYPES } from '../../src/orderbook/domain/eip712.js';

export type OrderKind = 'sell' | 'buy';
export type SigningScheme = 'eip712' | 'ethsign' | 'eip1271' | 'presign';

export interface TestOrder {
  sellToken: string;
  buyToken: string;
  receiver?: string | null;
  sellAmount: bigint;
  buyAmount: bigint;
  validTo: number;
  appData: string;
  feeAmount: bigint;
  kind: OrderKind;
  partiallyFillable: boolean;
  sellTokenBalance?: 'erc20' | 'external' | 'internal';
  buyTokenBalance?: 'erc20' | 'internal';
}

function typedValue(order: TestOrder) {
  return {
    ...order,
    receiver: order.receiver ?? ZeroAddress,
    sellTokenBalance: order.sellTokenBalance ?? 'erc20',
    buyTokenBalance: order.buyTokenBalance ?? 'erc20',
  };
}

export function orderDigest(domain: TypedDataDomain, order: TestOrder): string {
  return TypedDataEncoder.hash(domain, ORDER_TYPES, typedValue(order));
}

/** digest (32) ‖ owner (20) ‖ validTo (4, big-endian), lowercase. */
export function orderUid(digest: string, owner: string, validTo: number): string {
  return solidityPacked(['bytes32', 'address', 'uint32'], [digest, owner, validTo]).toLowerCase();
}

/** A 65-byte r‖s‖v ECDSA signature of the order by an EOA. */
export async function signOrder(signer: Wallet, domain: TypedDataDomain, order: TestOrder, scheme: 'eip712' | 'ethsign'): Promise<string> {
  if (scheme === 'eip712') return signer.signTypedData(domain, ORDER_TYPES, typedValue(order));
  return signer.signMessage(getBytes(orderDigest(domain, order)));
}

/**
 * The bits of GPv2Trade.extractFlags: 0 kind (1 = buy), 1 partially fillable, 2-3 sell token balance
 * (00 erc20, 10 external, 11 internal), 4 buy token balance (1 = internal), 5-6 signing scheme
 * (00 eip712, 01 ethsign, 10 eip1271, 11 presign).
 */
export function tradeFlags(order: TestOrder, scheme: SigningScheme): number {
  const sellBalance = { erc20: 0b0000, external: 0b1000, internal: 0b1100 }[order.sellTokenBalance ?? 'erc20'];
  const buyBalance = order.buyTokenBalance === 'internal' ? 0b10000 : 0;
  const schemeBits = { eip712: 0, ethsign: 1, eip1271: 2, presign: 3 }[scheme] << 5;
  return (order.kind === 'buy' ? 1 : 0) | (order.partiallyFillable ? 2 : 0) | sellBalance | buyBalance | schemeBits;
}

/** The trade's `signature` bytes per scheme. */
export const tradeSignature = {
  ecdsa: (signature: string) => signature,
  eip1271: (wallet: string, walletSignature: string) => concat([wallet, walletSignature]),
  presign: (owner: string) => owner.toLowerCase(),
};

export interface SettledTrade {
  order: TestOrder;
  scheme: SigningScheme;
  /** Already encoded for the scheme (see tradeSignature). */
  signature: string;
  /** For partially fillable orders: sell amount (sell order) or buy amount (buy order) to execute. */
  executedAmount?: bigint;
}

const settlementAbi = () => gpv2Artifact('GPv2Settlement').abi as InterfaceAbi;

export class TestSolver {
  readonly wallet: Wallet;
  private readonly settlement: Contract;

  constructor(provider: Provider, chain: Pick<DevChain, 'settlement'>) {
    this.wallet = new Wallet(DEV_SOLVER.privateKey, provider);
    this.settlement = new Contract(chain.settlement, settlementAbi(), this.wallet);
  }

  /** GPv2Settlement.settle with uniform clearing prices (token → price) and no interactions. */
  async settle(trades: SettledTrade[], clearingPrices: Record<string, bigint>): Promise<TransactionReceipt> {
    const tokens: string[] = [];
    const index = (token: string) => {
      const i = tokens.indexOf(token.toLowerCase());
      return i >= 0 ? i : tokens.push(token.toLowerCase()) - 1;
    };
    const encoded = trades.map(({ order, scheme, signature, executedAmount }) => ({
      sellTokenIndex: index(order.sellToken),
      buyTokenIndex: index(order.buyToken),
      receiver: order.receiver ?? ZeroAddress,
      sellAmount: order.sellAmount,
      buyAmount: order.buyAmount,
      validTo: order.validTo,
      appData: order.appData,
      feeAmount: order.feeAmount,
      flags: tradeFlags(order, scheme),
      executedAmount: executedAmount ?? 0n,
      signature,
    }));
    const prices = tokens.map((token) => {
      const price = Object.entries(clearingPrices).find(([t]) => t.toLowerCase() === token)?.[1];
      if (price === undefined) throw new Error(`no clearing price for ${token}`);
      return price;
    });
    return mined(this.settlement.settle(tokens, prices, encoded, [[], [], []]));
  }
}

export async function mined(tx: Promise<ContractTransactionResponse>): Promise<TransactionReceipt> {
  const receipt = await (await tx).wait();
  if (!receipt) throw new Error('transaction was not mined');
  return receipt;
}

export function testToken(address: string, runner: Signer | Provider): Contract {
  return new Contract(address, localArtifact('TestERC20').abi as InterfaceAbi, runner);
}

/**
 * Deploys a TestFaultyToken (contracts/): an ERC-20 whose balanceOf and allowance, for owners set with
 * `setFault(owner, 1 | 2)`, run out of gas or hit INVALID (0 heals them). mint/approve as testToken's.
 */
export async function deployFaultyToken(deployer: Signer, symbol = 'FLT'): Promise<Contract> {
  const artifact = localArtifact('TestFaultyToken');
  const contract = await new ContractFactory(artifact.abi as InterfaceAbi, artifact.bytecode, deployer).deploy(`Faulty ${symbol}`, symbol, 18);
  await contract.waitForDeployment();
  return contract as Contract;
}

/** Mints `amount` of a test token to the trader and approves the vault relayer for all of it. */
export async function fundTrader(token: string, trader: Wallet, amount: bigint, vaultRelayer: string, allowance = amount): Promise<void> {
  const asTrader = testToken(token, trader);
  await mined(asTrader.mint(trader.address, amount));
  await mined(asTrader.approve(vaultRelayer, allowance));
}

export async function invalidateOrder(settlement: string, owner: Wallet, uid: string): Promise<TransactionReceipt> {
  return mined(new Contract(settlement, settlementAbi(), owner).invalidateOrder(uid));
}

export async function setPreSignature(settlement: string, owner: Wallet, uid: string, signed: boolean): Promise<TransactionReceipt> {
  return mined(new Contract(settlement, settlementAbi(), owner).setPreSignature(uid, signed));
}

/** Deploys a TestEip1271Wallet owned by `owner`; returns its address (lowercase). */
export async function deployEip1271Wallet(owner: Wallet): Promise<string> {
  const artifact = localArtifact('TestEip1271Wallet');
  const contract = await new ContractFactory(artifact.abi as InterfaceAbi, artifact.bytecode, owner).deploy(owner.address);
  await contract.waitForDeployment();
  return (await contract.getAddress()).toLowerCase();
}

export function eip1271Wallet(address: string, owner: Wallet): Contract {
  return new Contract(address, localArtifact('TestEip1271Wallet').abi as InterfaceAbi, owner);
}
