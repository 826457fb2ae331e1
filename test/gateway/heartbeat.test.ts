/**
 * WebSocket heartbeat: a client that stops answering pings (its network path vanished without a FIN) is
 * dropped with its subscriptions, so that its upstream subscriptions end; a client that answers stays.
 */
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startTestService, type TestService } from '../support/service.js';
import { WsClient } from '../support/ws.js';
import { until } from '../support/wait.js';

describe('gateway WebSocket heartbeat', function () {
  this.timeout(30_000);
  // Long enough that a busy test process still answers in time: the answering client must not be dropped.
  const PING_MS = 500;
  let service: TestService;
  const clients: WsClient[] = [];

  before(async () => {
    service = await startTestService({ WS_PING_INTERVAL_MS: String(PING_MS) });
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await service?.stop();
  });

  async function connect(autoPong: boolean): Promise<WsClient> {
    const client = await WsClient.connect(`${service.url.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`, undefined, { autoPong });
    clients.push(client);
    return client;
  }

  it('drops a client that does not answer pings, and its upstream subscriptions with it', async () => {
    const hub = service.gateway.network('mainnet').hub;
    const [answering, silent] = await Promise.all([connect(true), connect(false)]);
    const closed = new Promise<number>((resolve) => silent.socket.once('close', (code) => resolve(code)));
    assert.match((await answering.call('eth_subscribe', ['newPendingTransactions'])).result, /^0x/);
    assert.match((await silent.call('eth_subscribe', ['newPendingTransactions'])).result, /^0x/);
    assert.match((await silent.call('eth_subscribe', ['logs', {}])).result, /^0x/);
    assert.equal(hub.upstreamSubscriptions, 1, 'the two newPendingTransactions clients share one');
    assert.equal(hub.clientSubscriptions, 3);

    // Terminated without a close frame: the client sees the abnormal closure code.
    assert.equal(await closed, 1006);
    await until(() => hub.clientSubscriptions === 1, "the silent client's subscriptions to end");

    // Several rounds later the answering client is still served.
    await new Promise((r) => setTimeout(r, PING_MS * 4));
    assert.equal(answering.socket.readyState, WebSocket.OPEN);
    assert.match((await answering.call('eth_chainId', [])).result, /^0x1$/);
    assert.equal(hub.upstreamSubscriptions, 1, 'newPendingTransactions is still used by the answering client');
  });
});
