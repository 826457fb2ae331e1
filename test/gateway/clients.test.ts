/**
 * Real Ethereum clients, used as their documentation says, against a network's dedicated listener
 * (PORT_MAINNET): its http:// URL is {network_url} and its ws:// URL is {ws_url}. ethers v6, viem and cast
 * send transactions, wait for receipts, read balances and follow new blocks through the gateway only.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { JsonRpcProvider, WebSocketProvider, Wallet, ContractFactory, parseEther, type Contract, type Provider } from 'ethers';
import { createPublicClient, createWalletClient, defineChain, http as viemHttp, webSocket as viemWebSocket, parseEther as viemParseEther, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startTestService, type TestService } from '../support/service.js';
import { DEV_KEYS, compileProbe } from '../support/chain.js';
import { foundryBinary } from '../../src/devchain/foundry.js';
import { until } from '../support/wait.js';

const run = promisify(execFile);

/** A fresh address with no history, so that its balance is exactly what a test sent to it. */
const freshAddress = () => Wallet.createRandom().address;

/** Resolves with the first block number `subscribe` reports that is above `after`. */
function nextBlock(subscribe: (onBlock: (n: number) => void) => () => void, after: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no block after ${after} within 20 s`));
    }, 20_000);
    const stop = subscribe((n) => {
      if (n <= after) return;
      clearTimeout(timer);
      stop();
      resolve(n);
    });
  });
}

describe('real clients against {network_url} and {ws_url}', function () {
  this.timeout(60_000);
  let service: TestService;
  let httpUrl: string;
  let wsUrl: string;

  before(async () => {
    service = await startTestService({ PORT_MAINNET: '0' });
    httpUrl = service.networkUrls.mainnet;
    wsUrl = httpUrl.replace('http', 'ws');
  });

  after(() => service?.stop());

  describe('ethers v6', () => {
    async function exercise(provider: Provider, key: string): Promise<void> {
      assert.equal((await provider.getNetwork()).chainId, 1n);
      const wallet = new Wallet(key, provider);
      const to = freshAddress();
      const before = await provider.getBalance(wallet.address);
      const tx = await wallet.sendTransaction({ to, value: parseEther('0.25') });
      const receipt = await tx.wait();
      assert.equal(receipt?.status, 1);
      assert.equal(receipt?.hash, tx.hash);
      assert.equal(await provider.getBalance(to), parseEther('0.25'));
      const fee = receipt!.gasUsed * receipt!.gasPrice;
      assert.equal(await provider.getBalance(wallet.address), before - parseEther('0.25') - fee);

      // A contract: deploy, read, and see its event.
      const { abi, bytecode } = compileProbe();
      const probe = (await new ContractFactory(abi, bytecode, wallet).deploy()) as Contract;
      await probe.waitForDeployment();
      assert.equal(await probe.getFunction('stored')(), 42n);
      await assert.rejects(probe.getFunction('fail')(), (err: any) => err.reason === 'probe says no');
      const poked = new Promise<bigint>((resolve) => probe.once('Poked', (_by: string, value: bigint) => resolve(value)));
      await (await probe.getFunction('poke')(9n)).wait();
      assert.equal(await poked, 9n);
      assert.equal(await probe.getFunction('stored')(), 9n);

      // Blocks: the listener fires for the block of a new transaction.
      const head = await provider.getBlockNumber();
      const seen = nextBlock((onBlock) => {
        void provider.on('block', onBlock);
        return () => void provider.off('block', onBlock);
      }, head);
      await (await wallet.sendTransaction({ to, value: 1n })).wait();
      assert.ok((await seen) > head);
    }

    // ethers answers an identical call from its own cache for 250 ms by default; an automining dev chain
    // moves faster than that (nonce and balance right after a receipt), so the cache is turned off.
    const options = { cacheTimeout: -1 };

    it('JsonRpcProvider on {network_url}', async () => {
      const provider = new JsonRpcProvider(httpUrl, undefined, { ...options, polling: true, pollingInterval: 250 });
      try {
        await exercise(provider, DEV_KEYS[0]);
      } finally {
        provider.destroy();
      }
    });

    it('WebSocketProvider on {ws_url}', async () => {
      const provider = new WebSocketProvider(wsUrl, undefined, options);
      try {
        await exercise(provider, DEV_KEYS[0]);
        // ethers sends eth_unsubscribe for the listeners exercise removed on its own time, and destroy()
        // rejects whatever is still in flight with nobody to catch it: let those calls be answered first
        // (the gateway answers them at once, so one more round trip after them sees their answers in).
        await until(() => service.gateway.network('mainnet').hub.clientSubscriptions === 0, 'the eth_unsubscribe calls');
        await provider.send('eth_chainId', []);
      } finally {
        await provider.destroy();
      }
      // Its subscriptions (blocks, the Poked event) end with the connection.
      await until(() => service.gateway.network('mainnet').hub.upstreamSubscriptions === 0, 'the upstream subscriptions to end');
    });
  });

  describe('viem', () => {
    const chain = defineChain({
      id: 1,
      name: 'ethgate mainnet (anvil)',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: ['http://unused.invalid'] } },
    });

    for (const transportKind of ['http', 'webSocket'] as const) {
      it(`public and wallet clients over the ${transportKind} transport`, async () => {
        const transport = transportKind === 'http' ? viemHttp(httpUrl) : viemWebSocket(wsUrl);
        const publicClient = createPublicClient({ chain, transport, pollingInterval: 250 });
        const account = privateKeyToAccount(DEV_KEYS[1] as Hex);
        const walletClient = createWalletClient({ account, chain, transport });
        try {
          assert.equal(await publicClient.getChainId(), 1);
          assert.equal(await walletClient.getChainId(), 1);
          const head = await publicClient.getBlockNumber();

          const blocks: bigint[] = [];
          const unwatch = publicClient.watchBlocks({ onBlock: (block) => void blocks.push(block.number) });
          const seen = nextBlock((onBlock) => {
            const unwatchNumbers = publicClient.watchBlockNumber({ onBlockNumber: (n) => onBlock(Number(n)), emitOnBegin: false });
            return unwatchNumbers;
          }, Number(head));

          const to = freshAddress() as Hex;
          const hash = await walletClient.sendTransaction({ to, value: viemParseEther('0.5') });
          const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 250 });
          assert.equal(receipt.status, 'success');
          assert.equal(receipt.transactionHash, hash);
          assert.equal(await publicClient.getBalance({ address: to }), viemParseEther('0.5'));
          assert.equal((await publicClient.getTransaction({ hash })).from.toLowerCase(), account.address.toLowerCase());

          assert.ok((await seen) > Number(head));
          await until(() => blocks.some((n) => n >= receipt.blockNumber), 'watchBlocks to see the block of the transaction');
          unwatch();
        } finally {
          if (transportKind === 'webSocket') {
            // viem keeps one socket per URL for all clients; closing it lets the service stop cleanly.
            (await (publicClient.transport as ReturnType<ReturnType<typeof viemWebSocket>>['value'] & object).getRpcClient()).close();
          }
        }
      });
    }
  });

  describe('cast (foundry)', () => {
    const cast = (...args: string[]) => run(foundryBinary('cast'), args, { timeout: 30_000 }).then((r) => r.stdout.trim());

    it('block-number, chain-id, send, receipt and balance on {network_url} and {ws_url}', async () => {
      assert.equal(await cast('chain-id', '--rpc-url', httpUrl), '1');
      const head = Number(await cast('block-number', '--rpc-url', httpUrl));
      assert.equal(head, Number(await cast('block-number', '--rpc-url', wsUrl)));

      const to = freshAddress();
      const sent = JSON.parse(await cast('send', '--json', '--private-key', DEV_KEYS[2], '--rpc-url', httpUrl, to, '--value', '12345'));
      assert.equal(sent.status, '0x1');
      assert.match(sent.transactionHash, /^0x[0-9a-f]{64}$/);

      const receipt = JSON.parse(await cast('receipt', '--json', '--rpc-url', httpUrl, sent.transactionHash));
      assert.equal(receipt.status, '0x1');
      assert.equal(receipt.transactionHash, sent.transactionHash);
      assert.equal(receipt.to.toLowerCase(), to.toLowerCase());
      assert.equal(Number(receipt.blockNumber), head + 1);
      assert.equal(Number(await cast('block-number', '--rpc-url', httpUrl)), head + 1);
      assert.equal(await cast('balance', '--rpc-url', wsUrl, to), '12345');

      const viaWs = JSON.parse(await cast('send', '--json', '--private-key', DEV_KEYS[2], '--rpc-url', wsUrl, to, '--value', '5'));
      assert.equal(viaWs.status, '0x1');
      assert.equal(JSON.parse(await cast('receipt', '--json', '--rpc-url', wsUrl, viaWs.transactionHash)).status, '0x1');
      assert.equal(await cast('balance', '--rpc-url', httpUrl, to), '12350');
    });
  });
});
