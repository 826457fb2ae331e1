/**
 * Which methods each channel accepts. The GET and POST lists are the specification's (the old Infura
 * /v1/jsonrpc API); the relayed list is what {network_url}/ and WebSocket accept by default and can be
 * replaced by configuration (RELAYED_METHODS).
 */

export const GET_METHODS: readonly string[] = [
  'eth_accounts',
  'eth_blockNumber',
  'eth_gasPrice',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getCode',
  'eth_getLogs',
  'eth_getUncleByBlockNumberAndIndex',
  'eth_getUncleByBlockHashAndIndex',
  'eth_getUncleCountByBlockHash',
  'eth_getTransactionCount',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionReceipt',
];

export const POST_METHODS: readonly string[] = [
  'eth_call',
  'eth_estimateGas',
  'eth_sendRawTransaction',
  'eth_submitWork',
  'eth_submitHashrate',
];

/** Methods that exist only on a WebSocket connection, handled by the subscription hub. */
export const SUBSCRIPTION_METHODS: readonly string[] = ['eth_subscribe', 'eth_unsubscribe'];

/**
 * The standard methods of the Ethereum execution-apis specification (its eth_ and net_ methods, as of 2026-08)
 * that read or submit, plus the older ones real clients (ethers, viem, web3.js, cast) still call
 * (web3_*, net_listening, eth_protocolVersion, eth_mining, eth_hashrate, the uncle and work methods). Left
 * out, as on Infura: the methods that would use keys held by the node (eth_sign, eth_signTransaction,
 * eth_sendTransaction), admin/debug/personal/miner/txpool/engine/testing, and dev-chain control (anvil_*,
 * evm_*, hardhat_*). docs/gateway.md lists them.
 */
export const DEFAULT_RELAYED_METHODS: readonly string[] = [
  ...GET_METHODS,
  ...POST_METHODS,
  'web3_clientVersion',
  'web3_sha3',
  'net_version',
  'net_listening',
  'net_peerCount',
  'eth_chainId',
  'eth_syncing',
  'eth_protocolVersion',
  'eth_mining',
  'eth_hashrate',
  'eth_maxPriorityFeePerGas',
  'eth_feeHistory',
  'eth_blobBaseFee',
  'eth_getStorageAt',
  'eth_getProof',
  'eth_getTransactionByHash',
  'eth_getBlockReceipts',
  'eth_getUncleCountByBlockNumber',
  'eth_createAccessList',
  'eth_simulateV1',
  'eth_newFilter',
  'eth_newBlockFilter',
  'eth_newPendingTransactionFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_uninstallFilter',
  // Added to the specification since: the fork configuration (EIP-7910), several storage slots at once, what
  // a node serves, the base fee, the block access list (EIP-7928), a transaction's missing fields filled in.
  'eth_config',
  'eth_getStorageValues',
  'eth_capabilities',
  'eth_coinbase',
  'eth_baseFee',
  'eth_getBlockAccessList',
  'eth_fillTransaction',
];

export type Channel = 'rest-get' | 'rest-post' | 'http' | 'ws';
