/**
 * Known answers from the CoW Protocol services' own tests (which take them from the contracts' GPv2Signing
 * tests): an order, its owner's signatures and UID, and two signed cancellations.
 */
import { gpv2Domain, type OrderData } from '../../src/orderbook/domain/eip712.js';

// The spec's test vector. Its domain separator is the one of the first contract that account #0 deploys on
// a hardhat chain (chain id 31337), not mainnet's settlement contract.
export const VECTOR_DOMAIN = gpv2Domain(31337, '0x5FbDB2315678afecb367f032d93F642f64180aa3');
export const VECTOR_SEPARATOR = '0x74e0b11bd18120612556bae4578cfd3a254d7e2495f543c569a92ff5794d9b09';
export const VECTOR_OWNER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const VECTOR_ORDER: OrderData = {
  sellToken: '0x' + '01'.repeat(20),
  buyToken: '0x' + '02'.repeat(20),
  receiver: '0x' + '03'.repeat(20),
  sellAmount: 42000000000000000000n,
  buyAmount: 13370000000000000000n,
  validTo: 0xffffffff,
  appData: '0x' + '00'.repeat(32),
  feeAmount: 1000000000000000000n,
  kind: 'sell',
  partiallyFillable: false,
  sellTokenBalance: 'erc20',
  buyTokenBalance: 'erc20',
};
export const VECTOR_UID =
  '0x0e45d31fd31b28c26031cdd81b35a8938b2ccca2cc425fcf440fd3bfed1eede970997970c51812dc3a010c7d01b50e0d17dc79c8ffffffff';

// Signatures of VECTOR_ORDER by VECTOR_OWNER in VECTOR_SEPARATOR.
export const VECTOR_EIP712_SIGNATURE =
  '0x59c0f5c151071c1320575f6da826a6c276525bbe733234bad1afb2879657d65d2afe6812746f4cc97f28f3a5dfdbfc7087511695d23da5e9792cd7ed6c9ddeb71c';
export const VECTOR_ETHSIGN_SIGNATURE =
  '0xbf3bc5a9b60d08dc05768320553ba59a6f301d985903618cfc002e8a61cb78b55d4a474a43a60193d90cda35ff2764f3913b47e5b5b87770064f549fe871afcc1b';

// Cancellations of the UID 0x2a…2a signed by account #0 (0xf39F…2266) in another domain separator.
export const CANCELLATION_SEPARATOR = '0xf8a1143d44c67470a791201b239ff6b0ecc8910aa9682bebd08145f5fd84722b';
export const CANCELLATION_UID = '0x' + '2a'.repeat(56);
export const CANCELLATION_SIGNER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
export const CANCELLATION_EIP712_SIGNATURE =
  '0xf2c69310a4dbcd78feabfd802df296ca4650681e01872f667251916ed3e9a2e14928382316607594a77c620e4bc4536e6fe145ee993a5ccc38fda929e86830231b';
export const CANCELLATION_ETHSIGN_SIGNATURE =
  '0x5fef0aed159777403f964da946b2b6c7d2ca6a931f009328c17ed481bf5fe25b46c8da3dfdca2657c9e6e7fbd3a1abbf52ee0ccaf610395fb2445256f5d24eb41b';

/** The dev chain's funded accounts (anvil, hardhat), by index. */
export const DEV_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fa9e4c5d2e3e8b1',
];
