/**
 * eth_subscribe over the gateway's WebSocket channels: notifications reach the client that subscribed (with
 * that client's own subscription id) and no other, in the exact eth_subscription shape, with what anvil
 * itself notifies. newHeads and logs come from the gateway's head tracker (no upstream subscription per
 * client); relayed kinds (newPendingTransactions) share one upstream subscription that ends when its last
 * client leaves.
 */
import assert from 'node:assert/strict';
import { Wallet } from 'ethers';
import { startTestService, type TestService } from '../support/service.js';
import { WsClient, type Notification } from '../support/ws.js';
import { DEV_KEYS, directProvider, prepareChain, probeInterface, signedTransfer, type PreparedChain } from '../support/chain.js';
import { until } from '../support/wait.js';

/**
 * The first notification of `subscription` that `wanted` accepts. The gateway's head tracker may learn of a
 * block mined before a client subscribed only after it did (a poll, a slow turn), and then notifies it: a
 * test waits for the block it made rather than taking the first notification as that block.
 */
async function notificationWhere(client: WsClient, subscription: string, wanted: (result: any) => boolean): Promise<Notification> {
  for (let after = 0; ; after++) {
    const note = await client.notification(subscription, after);
    after = client.notifications.indexOf(note);
    if (wanted(note.params.result)) return note;
  }
}

function assertShape(note: Notification, subscription: string): void {
  assert.deepEqual(Object.keys(note).sort(), ['jsonrpc', 'method', 'params']);
  assert.equal(note.jsonrpc, '2.0');
  assert.equal(note.method, 'eth_subscription');
  assert.deepEqual(Object.keys(note.params).sort(), ['result', 'subscription']);
  assert.equal(note.params.subscription, subscription);
}

describe('gateway subscriptions', function () {
  this.timeout(60_000);
  let service: TestService;
  let chain: PreparedChain;
  let anvilWs: string;
  const clients: WsClient[] = [];

  const hub = () => service.gateway.network('mainnet').hub;
  async function connect(kind: 'host' | 'rest' | 'port' | 'anvil'): Promise<WsClient> {
    const main = service.url.replace('http', 'ws');
    const client =
      kind === 'host'
        ? await WsClient.connect(`${main}/ws`, 'mainnet.localhost')
        : kind === 'rest'
          ? await WsClient.connect(`${main}/v1/jsonrpc/mainnet/ws`)
          : kind === 'port'
            ? await WsClient.connect(service.networkUrls.mainnet.replace('http', 'ws'))
            : await WsClient.connect(anvilWs);
    clients.push(client);
    return client;
  }
  async function subscribe(client: WsClient, params: unknown[]): Promise<string> {
    const reply = await client.call('eth_subscribe', params);
    assert.match(reply.result, /^0x[0-9a-f]+$/, JSON.stringify(reply));
    return reply.result;
  }

  before(async () => {
    service = await startTestService({ PORT_MAINNET: '0' });
    const anvil = service.gateway.network('mainnet').anvil!;
    anvilWs = anvil.wsUrl;
    chain = await prepareChain(anvil.httpUrl);
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await service?.stop();
  });

  it('relays newHeads, logs and newPendingTransactions each to its own client, as anvil notifies them', async () => {
    const [heads1, heads2, logs, pending, direct] = await Promise.all([
      connect('host'),
      connect('port'),
      connect('rest'),
      connect('rest'),
      connect('anvil'),
    ]);
    const logFilter = { address: chain.probe };
    const ids = {
      heads1: await subscribe(heads1, ['newHeads']),
      heads2: await subscribe(heads2, ['newHeads']),
      logs: await subscribe(logs, ['logs', logFilter]),
      pending: await subscribe(pending, ['newPendingTransactions']),
    };
    assert.equal(new Set(Object.values(ids)).size, 4, 'every client has its own subscription id');
    // newHeads and logs are served from the head tracker; only newPendingTransactions is relayed.
    assert.equal(hub().upstreamSubscriptions, 1);
    const directIds = {
      heads: await subscribe(direct, ['newHeads']),
      logs: await subscribe(direct, ['logs', logFilter]),
      pending: await subscribe(direct, ['newPendingTransactions']),
    };

    // A poke makes one block, one log and one pending transaction.
    const provider = directProvider(service.gateway.network('mainnet').anvil!.httpUrl);
    try {
      const wallet = new Wallet(DEV_KEYS[1], provider);
      const tx = await wallet.sendTransaction({ to: chain.probe, data: probeInterface().encodeFunctionData('poke', [77n]) });
      const { blockHash } = (await tx.wait())!;
      const ofBlock = (head: any) => head.hash === blockHash;
      const ofTx = (log: any) => log.transactionHash === tx.hash;
      const isTx = (hash: any) => hash === tx.hash;

      const [h1, h2, l, p] = await Promise.all([
        notificationWhere(heads1, ids.heads1, ofBlock),
        notificationWhere(heads2, ids.heads2, ofBlock),
        notificationWhere(logs, ids.logs, ofTx),
        notificationWhere(pending, ids.pending, isTx),
      ]);
      assertShape(h1, ids.heads1);
      assertShape(h2, ids.heads2);
      assertShape(l, ids.logs);
      assertShape(p, ids.pending);

      assert.deepEqual(h1.params.result, (await notificationWhere(direct, directIds.heads, ofBlock)).params.result);
      assert.deepEqual(h2.params.result, h1.params.result);
      assert.deepEqual(l.params.result, (await notificationWhere(direct, directIds.logs, ofTx)).params.result);
      assert.deepEqual(p.params.result, (await notificationWhere(direct, directIds.pending, isTx)).params.result);
    } finally {
      provider.destroy();
    }

    // Each client saw only its own subscription.
    for (const [client, id] of [[heads1, ids.heads1], [heads2, ids.heads2], [logs, ids.logs], [pending, ids.pending]] as const) {
      assert.ok(client.notifications.length > 0);
      for (const note of client.notifications) assert.equal(note.params.subscription, id);
    }

    // eth_unsubscribe: true for one's own id; the shared upstream subscription lives while a client uses it.
    assert.equal((await heads1.call('eth_unsubscribe', [ids.logs])).result, false, "another client's id");
    assert.equal((await heads1.call('eth_unsubscribe', [ids.heads1])).result, true);
    assert.equal((await heads1.call('eth_unsubscribe', [ids.heads1])).result, false, 'already ended');
    assert.equal((await heads2.call('eth_unsubscribe', [ids.heads2])).result, true);
    assert.equal((await logs.call('eth_unsubscribe', [ids.logs])).result, true);
    assert.equal(hub().upstreamSubscriptions, 1);
    assert.equal((await pending.call('eth_unsubscribe', [ids.pending])).result, true);
    await until(() => hub().upstreamSubscriptions === 0, 'every upstream subscription to end');

    // Nothing more arrives after unsubscribing.
    const gatewayClients = [heads1, heads2, logs, pending];
    const seen = gatewayClients.map((c) => c.notifications.length);
    const directSeen = direct.notifications.length;
    await sendTransfer();
    await direct.notification(directIds.heads, directSeen);
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(gatewayClients.map((c) => c.notifications.length), seen);
  });

  it('answers an unknown subscription kind with the error anvil gives', async () => {
    const [client, direct] = await Promise.all([connect('rest'), connect('anvil')]);
    const viaGateway = await client.call('eth_subscribe', ['bogusKind']);
    const viaAnvil = await direct.call('eth_subscribe', ['bogusKind']);
    assert.ok(viaAnvil.error, JSON.stringify(viaAnvil));
    assert.deepEqual(viaGateway.error, viaAnvil.error);
    assert.equal(hub().upstreamSubscriptions, 0);
  });

  it('ends the upstream subscription when its last client disconnects', async () => {
    const [a, b] = await Promise.all([connect('host'), connect('port')]);
    await subscribe(a, ['newPendingTransactions']);
    await subscribe(b, ['newPendingTransactions']);
    await subscribe(b, ['logs', {}]);
    assert.equal(hub().upstreamSubscriptions, 1);
    await a.close();
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(hub().upstreamSubscriptions, 1, 'b still uses newPendingTransactions');
    b.socket.terminate();
    await until(() => hub().upstreamSubscriptions === 0, 'the upstream subscriptions to end');
  });

  it('ends the upstream subscription of a client that disconnects before its eth_subscribe is answered', async () => {
    for (let i = 0; i < 5; i++) {
      const client = await connect('rest');
      client.sendRaw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newPendingTransactions'] }));
      client.socket.terminate();
    }
    await new Promise((r) => setTimeout(r, 300));
    await until(() => hub().upstreamSubscriptions === 0, 'no upstream subscription to be left');
  });

  /** Sends one more transaction straight to anvil: a new block without logs. */
  async function sendTransfer(): Promise<void> {
    const provider = directProvider(service.gateway.network('mainnet').anvil!.httpUrl);
    try {
      const nonce = await provider.getTransactionCount(new Wallet(DEV_KEYS[2]).address);
      await provider.broadcastTransaction(await signedTransfer(DEV_KEYS[2], nonce));
    } finally {
      provider.destroy();
    }
  }
});
