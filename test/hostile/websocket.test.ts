/**
 * WebSocket amplification (issue 29, item 5), against the service as a process: connections are capped per
 * client (429; an IPv6 client by its /64, as the access layer counts it) and in all (503) with a JSON-RPC
 * error body and Retry-After; the default cap of
 * subscriptions per connection holds; a client that floods requests and reads nothing is closed with 1008
 * within the stall bound and its place given back; a notification that many subscriptions share reaches
 * each with its own subscription id and the same result, as geth writes it. The process lives, and nothing
 * is appended to the order book's log.
 */
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { Wallet, parseEther, JsonRpcProvider } from 'ethers';
import { spawnService, serviceEnv, type ServiceProcess } from '../support/process.js';
import { http } from '../support/http.js';
import { WsClient, type WsRefusal } from '../support/ws.js';
import { DEV_KEYS } from '../support/chain.js';
import { until } from '../support/wait.js';
import { freePort } from '../../src/devchain/anvil.js';

const PER_CLIENT = 3;
const TOTAL = 5;
const STALL_MS = 1_000;
const MAX_BUFFERED = 64 * 1024;
/** The default of MAX_SUBSCRIPTIONS_PER_CONNECTION. */
const DEFAULT_SUBSCRIPTIONS = 32;

function assertRefusal(refusal: WsRefusal, status: number, message: RegExp): void {
  assert.equal(refusal.status, status, JSON.stringify(refusal.body));
  assert.equal(refusal.body?.jsonrpc, '2.0');
  assert.equal(refusal.body.id, null);
  assert.equal(refusal.body.error?.code, -32005);
  assert.match(refusal.body.error.message, message);
  assert.match(String(refusal.headers['retry-after']), /^\d+$/);
}

describe('hostile: WebSocket', function () {
  this.timeout(120_000);
  let service: ServiceProcess;
  let wsUrl: string;
  /** The network's own listener (PORT_MAINNET): its {network_url}, for a client such as ethers. */
  let networkUrl: string;
  const clients: WsClient[] = [];
  const connect = async (address: string) => {
    const client = await WsClient.connect(wsUrl, undefined, { headers: { 'x-forwarded-for': address } });
    clients.push(client);
    return client;
  };
  const refusal = (address: string) => WsClient.refusal(wsUrl, undefined, { 'x-forwarded-for': address });
  const logHead = async () => (await http(`${service.url}/healthz`)).json.orderbook.head as number;

  before(async () => {
    const networkPort = await freePort();
    networkUrl = `http://127.0.0.1:${networkPort}`;
    service = await spawnService(
      await serviceEnv({
        PORT_MAINNET: String(networkPort),
        TRUST_PROXY: '1',
        WS_MAX_PER_CLIENT: String(PER_CLIENT),
        WS_MAX_CONNECTIONS: String(TOTAL),
        WS_STALL_MS: String(STALL_MS),
        WS_MAX_BUFFERED_BYTES: String(MAX_BUFFERED),
      }),
    );
    wsUrl = `${service.url.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`;
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  after(() => service?.stop());

  it('caps connections per client address (429) and in all (503), and gives a place back when a connection ends', async () => {
    const head = await logHead();
    const mine = [await connect('198.51.100.1'), await connect('198.51.100.1'), await connect('198.51.100.1')];
    assertRefusal(await refusal('198.51.100.1'), 429, /at most 3 WebSocket connections per client address \(WS_MAX_PER_CLIENT\)/);
    await connect('198.51.100.2');
    await connect('198.51.100.3');
    assertRefusal(await refusal('198.51.100.4'), 503, /\(5, WS_MAX_CONNECTIONS\)/);
    // The connections that were admitted serve as usual.
    assert.equal((await mine[2].call('eth_chainId')).result, '0x1');
    await mine[0].close();
    await until(async () => {
      try {
        await connect('198.51.100.4');
        return true;
      } catch {
        return false;
      }
    }, 'a place given back');
    assert.equal(service.child.exitCode, null, 'the service is alive');
    assert.equal(await logHead(), head, 'nothing appended');
  });

  it('counts an IPv6 client by its /64, as the access layer does', async () => {
    for (const address of ['2001:db8:5:6::1', '2001:db8:5:6::2', '2001:db8:5:6:ffff::3']) await connect(address);
    assertRefusal(await refusal('2001:db8:5:6::4'), 429, /WS_MAX_PER_CLIENT/);
    const other = await connect('2001:db8:5:7::1');
    assert.equal((await other.call('eth_chainId')).result, '0x1', 'the next /64 is another client');
  });

  it(`holds at most ${DEFAULT_SUBSCRIPTIONS} subscriptions per connection by default`, async () => {
    const ws = await connect('198.51.100.5');
    for (let i = 0; i < DEFAULT_SUBSCRIPTIONS; i++) assert.match((await ws.call('eth_subscribe', ['newHeads'])).result, /^0x/);
    const over = await ws.call('eth_subscribe', ['newHeads']);
    assert.equal(over.error?.code, -32005, JSON.stringify(over));
    assert.match(over.error.message, new RegExp(`at most ${DEFAULT_SUBSCRIPTIONS} subscriptions per connection`));
  });

  it('closes a client that floods requests and reads nothing with 1008 within the stall bound, and gives its place back', async () => {
    const head = await logHead();
    const socket = new WebSocket(wsUrl, { headers: { 'x-forwarded-for': '198.51.100.6' } });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    socket.pause();
    // Each answer echoes a 32 KB id: 400 of them are far more than the socket buffers and the bound take.
    const id = 'x'.repeat(32 * 1024);
    for (let i = 0; i < 400; i++) socket.send(JSON.stringify({ jsonrpc: '2.0', id: `${id}${i}`, method: 'eth_chainId', params: [] }));
    const pausedAt = Date.now();
    await new Promise((r) => setTimeout(r, STALL_MS + 1_000));
    socket.resume();
    const { code, reason } = await closed;
    assert.equal(code, 1008, reason);
    assert.match(reason, new RegExp(`client (left more than ${MAX_BUFFERED} bytes unread|read nothing for ${STALL_MS} ms)`));
    assert.ok(Date.now() - pausedAt < STALL_MS + 10_000, 'closed within the bound');
    // Its place is free again.
    await until(async () => {
      const all = await Promise.allSettled(Array.from({ length: PER_CLIENT }, () => connect('198.51.100.6')));
      for (const c of clients.splice(-PER_CLIENT)) await c?.close();
      return all.every((r) => r.status === 'fulfilled');
    }, 'the cut-off connection to give its place back');
    assert.equal(service.child.exitCode, null, 'the service is alive');
    assert.equal(await logHead(), head, 'nothing appended');
  });

  it('sends a notification shared by many subscriptions to each with its own id and the same result, as geth writes it', async () => {
    const head = await logHead();
    const raw: string[][] = [];
    const sockets: WebSocket[] = [];
    const ids: string[] = [];
    for (let c = 0; c < 3; c++) {
      const socket = new WebSocket(wsUrl, { headers: { 'x-forwarded-for': `198.51.100.${20 + c}` } });
      sockets.push(socket);
      const frames: string[] = [];
      raw.push(frames);
      socket.on('message', (data: Buffer) => frames.push(data.toString()));
      await new Promise((resolve) => socket.once('open', resolve));
      for (let s = 0; s < 4; s++) {
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: s, method: 'eth_subscribe', params: ['newHeads'] }));
      }
    }
    try {
      await until(() => raw.every((frames) => frames.length === 4), 'the subscriptions');
      for (const frames of raw) ids.push(...frames.map((f) => JSON.parse(f).result as string));
      assert.equal(new Set(ids).size, 12);
      // A plain transfer through the gateway mines a block: one head for all twelve subscriptions.
      const provider = new JsonRpcProvider(networkUrl, 1, { staticNetwork: true });
      const wallet = new Wallet(DEV_KEYS[1], provider);
      await (await wallet.sendTransaction({ to: Wallet.createRandom().address, value: parseEther('0.001') })).wait();
      await until(() => raw.every((frames) => frames.length >= 8), 'a notification for every subscription');
      const notes = raw.flatMap((frames) => frames.slice(4, 8));
      const results = new Set<string>();
      for (const text of notes) {
        const note = JSON.parse(text);
        assert.deepEqual(Object.keys(note), ['jsonrpc', 'method', 'params']);
        assert.equal(note.method, 'eth_subscription');
        assert.deepEqual(Object.keys(note.params), ['subscription', 'result']);
        results.add(JSON.stringify(note.params.result));
        assert.equal(text, JSON.stringify(note), 'compact JSON, as written by JSON.stringify');
      }
      assert.deepEqual(notes.map((text) => JSON.parse(text).params.subscription).sort(), [...ids].sort());
      assert.equal(results.size, 1, 'the same result for every subscription');
      provider.destroy();
    } finally {
      for (const socket of sockets) socket.terminate();
    }
    assert.equal(await logHead(), head, 'nothing appended');
  });
});
