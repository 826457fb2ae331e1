/**
 * A test solver and trader helpers for the real GPv2Settlement on anvil, with ethers v6 as the client.
 *
 * Order hashing here is test-side only (ethers' TypedDataEncoder over the domain module's Order type, and
 * solidityPacked for the UID), a second computation beside the production one in the order domain. The
 * settlement's encoding (trade flags, signature bytes, token indices) is the dev solver's
 * (src/devsolver/encoding.ts), so that both settle the same way.
 */
import {
  Contract,
  ContractFactory,
  TypedDataEncoder,
  Wallet,
  ZeroAddress,
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
import {
  encodeSettlement,
  tradeFlags,
  tradeSignature,
  type OrderKind,
  type SettledTrade,
  type SignedOrderData,
  type SigningScheme,
} from '../../src/devsolver/encoding.js';

export type { OrderKind, SigningScheme, SettledTrade };
export { tradeFlags, tradeSignature };

export type TestOrder = SignedOrderData;

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
    const { tokens, clearingPrices: prices, trades: encoded, interactions } = encodeSettlement(trades, clearingPrices);
    return mined(this.settlement.settle(tokens, prices, encoded, interactions));
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
