/**
 * The domain's signing facts against the real contracts on an anvil chain: the deployed GPv2Settlement
 * (from @cowprotocol/contracts) has our domain separator and reads our UIDs' owner, and an EIP-1271 wallet
 * compiled here answers isValidSignature through an ethers provider as isValidEip1271Signature expects.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import solc from 'solc';
import { ContractFactory, JsonRpcProvider, NonceManager, Wallet, getBytes, id, type Contract } from 'ethers';
import { Anvil } from '../../src/chain/anvil.js';
import { logger } from '../../src/logger.js';
import { repoPath } from '../../src/paths.js';
import { domainSeparator, gpv2Domain, orderDigest, packOrderUid } from '../../src/orderbook/domain/eip712.js';
import { isValidEip1271Signature, type EthCall } from '../../src/orderbook/domain/signature.js';
import { orderData } from '../support/orders.js';
import { DEV_KEYS } from '../support/vectors.js';

const WALLET_SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A smart-contract wallet: a signature is valid when its one owner key signed the hash.
contract TestEip1271Wallet {
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        require(signature.length == 65, "signature must be 65 bytes");
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        return ecrecover(hash, v, r, s) == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}
`;

function compileWallet(): { abi: unknown[]; bytecode: string } {
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'TestEip1271Wallet.sol': { content: WALLET_SOURCE } },
        settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
      }),
    ),
  );
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  const contract = output.contracts['TestEip1271Wallet.sol'].TestEip1271Wallet;
  return { abi: contract.abi, bytecode: '0x' + contract.evm.bytecode.object };
}

function artifact(name: string): { abi: unknown[]; bytecode: string } {
  return JSON.parse(readFileSync(repoPath('node_modules', '@cowprotocol', 'contracts', 'lib', 'contracts', `${name}.json`), 'utf8'));
}

describe('orderbook signing against the real contracts', function () {
  this.timeout(120_000);
  const anvil = new Anvil({ name: 'signing-test', chainId: 1, logger });
  let provider: JsonRpcProvider;
  let deployer: NonceManager;
  let settlement: Contract;
  const owner = new Wallet(DEV_KEYS[1]);

  before(async () => {
    await anvil.start();
    provider = new JsonRpcProvider(anvil.httpUrl, 1, { staticNetwork: true, cacheTimeout: -1 });
    deployer = new NonceManager(new Wallet(DEV_KEYS[0], provider));
    const { abi, bytecode } = artifact('GPv2Settlement');
    // The authenticator and vault are only stored (the vault relayer is created for the vault); any
    // addresses do for what this test calls.
    const factory = new ContractFactory(abi as never, bytecode, deployer);
    settlement = (await (await factory.deploy('0x' + '01'.repeat(20), '0x' + '02'.repeat(20))).waitForDeployment()) as Contract;
  });
  after(() => anvil.stop());

  it("has the domain separator we compute for the chain id and the contract's address", async () => {
    const address = await settlement.getAddress();
    assert.equal(await settlement.domainSeparator(), domainSeparator(gpv2Domain(1, address)));
  });

  it('reads the owner of our UIDs: the owner can invalidate and presign its order, nobody else', async () => {
    const separator = domainSeparator(gpv2Domain(1, await settlement.getAddress()));
    const order = orderData({ sellToken: '0x' + '11'.repeat(20), buyToken: '0x' + '22'.repeat(20), sellAmount: 1n, buyAmount: 1n });
    const uid = packOrderUid(orderDigest(separator, order), owner.address, order.validTo);
    const asOwner = settlement.connect(new NonceManager(owner.connect(provider))) as Contract;
    await (await asOwner.setPreSignature(uid, true)).wait();
    // The contract stores PRE_SIGNED = keccak256("GPv2Signing.Scheme.PreSign") for the UID.
    assert.equal(await settlement.preSignature(uid), BigInt(id('GPv2Signing.Scheme.PreSign')));
    await (await asOwner.invalidateOrder(uid)).wait();
    assert.equal(await settlement.filledAmount(uid), (1n << 256n) - 1n);
    // Someone else's transaction is refused by the contract, which reads the owner from bytes 32..52.
    await assert.rejects((settlement.connect(deployer) as Contract).invalidateOrder.staticCall(uid), /caller does not own order/);
  });

  it('checks isValidSignature of an EIP-1271 wallet through an ethers provider', async () => {
    const { abi, bytecode } = compileWallet();
    const wallet = await (await new ContractFactory(abi as never, bytecode, deployer).deploy(owner.address)).waitForDeployment();
    const walletAddress = await wallet.getAddress();
    const ethCall: EthCall = (to, data) => provider.call({ to, data });
    const separator = domainSeparator(gpv2Domain(1, await settlement.getAddress()));
    const digest = orderDigest(separator, orderData({ sellToken: '0x' + '11'.repeat(20), buyToken: '0x' + '22'.repeat(20), sellAmount: 3n, buyAmount: 4n }));
    // The wallet's owner key signs the raw digest (no prefix), as this wallet checks.
    const bySigner = owner.signingKey.sign(getBytes(digest)).serialized;
    const byOther = new Wallet(DEV_KEYS[2]).signingKey.sign(getBytes(digest)).serialized;
    assert.equal(await isValidEip1271Signature(ethCall, walletAddress, digest, bySigner), true);
    assert.equal(await isValidEip1271Signature(ethCall, walletAddress, digest, byOther), false);
    // A reverting call (wrong length) and an account without code are no valid signature.
    assert.equal(await isValidEip1271Signature(ethCall, walletAddress, digest, '0x1234'), false);
    assert.equal(await isValidEip1271Signature(ethCall, owner.address, digest, bySigner), false);
  });
});
