/**
 * Event streams as an attacker uses them (issue 29, item 1), against the service as a process with a
 * 20,000-event log: streams are capped per client address and in all (429 TooManyRequests with
 * Retry-After, the event and solver streams alike), the client counted as the access layer identifies it
 * (an IPv6 client by its /64, X-Forwarded-For read from a trusted proxy only), a catch-up that never reads is
 * cut off within the stall
 * bound with a last message saying where to resume, and its place is given back; the process lives and
 * nothing is appended to the log by any of it.
 */
import assert from 'node:assert/strict';
import { spawnService, serviceEnv, type ServiceProcess } from '../support/process.js';
import { http, type HttpResult } from '../support/http.js';
import { openSse, type SseClient } from '../support/sse.js';
import { synthesiseLog } from '../support/synthetic-log.js';
import { until } from '../support/wait.js';
import { openEventStore } from '../../src/orderbook/store/index.js';

const PER_CLIENT = 3;
const TOTAL = 5;
const STALL_MS = 1_000;
const LOG_EVENTS = 20_000;
/** The proxy the service trusts (TRUST_PROXY): the test's clients connect from it, unless they are strangers. */
const PROXY = '127.0.0.2';

function assertTooManyRequests(res: HttpResult, limit: RegExp): void {
  assert.equal(res.status, 429, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(Object.keys(res.json ?? {}).sort(), ['description', 'errorType'], res.text);
  assert.equal(res.json.errorType, 'TooManyRequests');
  assert.match(res.json.description, limit);
  assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
}

describe('hostile: event streams', function () {
  this.timeout(180_000);
  let service: ServiceProcess;
  const clients: SseClient[] = [];
  /**
   * Opens a stream as the client at `address`, forwarded by the trusted proxy (X-Forwarded-For), or with
   * `from` another peer, which the service does not trust (its X-Forwarded-For is then ignored).
   */
  const open = async (path: string, address: string, from = PROXY) => {
    const client = await openSse(`${service.api}${path}`, { 'x-forwarded-for': address }, { localAddress: from });
    clients.push(client);
    return client;
  };
  /** Whether `n` streams from distinct addresses are admitted now (each closed at once). */
  const placesFree = async (n: number) => {
    const probes = await Promise.all(
      Array.from({ length: n }, (_, i) => openSse(`${service.api}/events/stream`, { 'x-forwarded-for': `192.0.2.${240 + i}` }, { localAddress: PROXY })),
    );
    for (const probe of probes) probe.close();
    return probes.every((probe) => probe.status === 200);
  };
  const refusal = (client: SseClient): HttpResult => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(client.response.headers)) if (typeof v === 'string') headers.set(k, v);
    let json: unknown;
    try {
      json = JSON.parse(client.body);
    } catch {
      json = undefined;
    }
    return { status: client.status, headers, text: client.body, json };
  };
  const logHead = async () => (await http(`${service.url}/healthz`)).json.orderbook.head as number;

  before(async () => {
    const env = await serviceEnv({
      TRUST_PROXY: PROXY,
      STREAM_MAX_PER_CLIENT: String(PER_CLIENT),
      STREAM_MAX_CONNECTIONS: String(TOTAL),
      STREAM_STALL_MS: String(STALL_MS),
      STREAM_HEARTBEAT_MS: '200',
      STREAM_CATCHUP_CHUNK_BYTES: String(16 * 1024),
    });
    const store = await openEventStore({ dataDir: env.DATA_DIR });
    await synthesiseLog(store, LOG_EVENTS);
    await store.close();
    service = await spawnService(env, { timeoutMs: 120_000 });
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    // The service sees the closes and gives the places back.
    await until(() => placesFree(1), 'the streams closed by the test to be given back');
  });
  after(() => service?.stop());

  it('caps streams per client address and in all, the solver stream included, with 429 TooManyRequests and Retry-After', async () => {
    const head = await logHead();
    const mine = [await open('/events/stream', '198.51.100.1'), await open('/solver/stream', '198.51.100.1'), await open('/events/stream?after=19990', '198.51.100.1')];
    for (const stream of mine) assert.equal(stream.status, 200, stream.body);
    const over = await open('/events/stream', '198.51.100.1');
    assertTooManyRequests(refusal(over), /at most 3 event streams per client address \(STREAM_MAX_PER_CLIENT\)/);
    assertTooManyRequests(refusal(await open('/solver/stream', '198.51.100.1')), /STREAM_MAX_PER_CLIENT/);

    // Other addresses fill the service's total; then anybody is refused.
    assert.equal((await open('/events/stream', '198.51.100.2')).status, 200);
    assert.equal((await open('/events/stream', '198.51.100.3')).status, 200);
    assertTooManyRequests(refusal(await open('/events/stream', '198.51.100.4')), /\(5, STREAM_MAX_CONNECTIONS\)/);

    // A stream that ends gives its place back.
    mine[0].close();
    await until(async () => (await open('/events/stream', '198.51.100.4')).status === 200, 'a place given back');
    assert.equal(service.child.exitCode, null, 'the service is alive');
    assert.equal(await logHead(), head, 'nothing appended');
  });

  it('counts a client as the access layer identifies it: an IPv6 client by its /64, a forwarded address only from a trusted proxy', async () => {
    const block = ['2001:db8:1:2::a', '2001:db8:1:2::b', '2001:db8:1:2:ffff::1'];
    for (const address of block) assert.equal((await open('/events/stream', address)).status, 200);
    assertTooManyRequests(refusal(await open('/events/stream', '2001:db8:1:2::c')), /STREAM_MAX_PER_CLIENT/);
    assert.equal((await open('/events/stream', '2001:db8:1:3::a')).status, 200, 'the next /64 is another client');
    for (const c of clients.splice(0)) c.close();
    await until(() => placesFree(TOTAL), 'every place given back');

    // A peer the service does not trust is the client itself, whatever X-Forwarded-For it writes.
    const stranger = '127.0.0.1';
    for (const forged of ['198.51.100.71', '198.51.100.72', '198.51.100.73']) {
      assert.equal((await open('/events/stream', forged, stranger)).status, 200);
    }
    assertTooManyRequests(refusal(await open('/events/stream', '198.51.100.74', stranger)), /STREAM_MAX_PER_CLIENT/);
    assert.equal((await open('/events/stream', '198.51.100.74')).status, 200, 'the same address through the proxy is another client');
  });

  it('cuts off a catch-up that never reads within the stall bound, says where to resume, and gives its place back', async () => {
    const head = await logHead();
    assert.ok(head >= LOG_EVENTS, `the log holds ${head} events`);
    const stalled = await open('/events/stream?after=0', '198.51.100.9');
    assert.equal(stalled.status, 200);
    stalled.pause();
    const pausedAt = Date.now();
    // A reading client beside it catches up the whole log meanwhile.
    const reader = await open('/events/stream?after=0', '198.51.100.10');
    await reader.waitFor(LOG_EVENTS, 60_000);
    // Past the bound (and a tick of the check), the stalled stream was cut off: reading again, the client
    // gets what was written, then the last message, then the end.
    await new Promise((r) => setTimeout(r, Math.max(0, pausedAt + STALL_MS + 1_000 - Date.now())));
    stalled.resume();
    await until(() => stalled.ended, 'the stalled stream to end', 10_000);
    const last = stalled.events.at(-1)!;
    assert.equal(last.event, 'slow-consumer', JSON.stringify(last));
    const message = JSON.parse(last.data);
    assert.equal(message.errorType, 'SlowConsumer');
    assert.match(message.description, new RegExp(`read nothing for ${STALL_MS} ms`));
    const received = stalled.events.slice(0, -1);
    assert.ok(received.length < LOG_EVENTS, `the stalled client was cut off during catch-up (${received.length} events)`);
    assert.match(message.description, new RegExp(`Last-Event-ID: ${received.at(-1)!.id}\\b`), 'it names the last event written');
    // Its place is free again: the same address may hold PER_CLIENT streams.
    const again = await Promise.all(Array.from({ length: PER_CLIENT }, () => open('/events/stream', '198.51.100.9')));
    assert.deepEqual(again.map((c) => c.status), Array(PER_CLIENT).fill(200));
    assert.equal(service.child.exitCode, null, 'the service is alive');
    assert.equal((await http(`${service.url}/healthz`)).status, 200);
    assert.equal(await logHead(), head, 'nothing appended');
  });
});
