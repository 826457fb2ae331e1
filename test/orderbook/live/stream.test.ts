/**
 * GET /api/v1/events/stream as solvers and auditors use it: each event with its position as id and the
 * /events item as data, resumable with Last-Event-ID (nothing lost, nothing twice), filters, heartbeats,
 * 400s for bad parameters, and a client that stops reading cut off at the bound while another reads on.
 * Thousands of events come from the synthetic log (test/support/synthetic-log.ts), appended to the
 * service's own store as the command handler would.
 */
import assert from 'node:assert/strict';
import { signCancellation, signOrder } from '../../support/orders.js';
import { deleteOrder, get, postOrder, startOrderbookService, TOKENS, type OrderbookHarness } from '../../support/orderbook.js';
import { openSse, type SseClient } from '../../support/sse.js';
import { orderEvents, synthesiseLog } from '../../support/synthetic-log.js';
import { orderStreamId } from '../../../src/orderbook/write/events.js';
import { HANG_GUARD_MS, until } from '../../support/wait.js';
import { e18 } from '../../support/onchain.js';

const { TKA, TKB } = TOKENS;
const BOUND = 64 * 1024;

describe('order book: the event stream', function () {
  this.timeout(180_000);
  let h: OrderbookHarness;
  const clients: SseClient[] = [];
  const open = async (query = '', headers: Record<string, string> = {}) => {
    const client = await openSse(`${h.api}/events/stream${query}`, headers);
    clients.push(client);
    return client;
  };
  // Synthetic orders numbered from here on, so that each call appends new streams.
  let nextOrder = 1_000_000;
  const appendSynthetic = async (events: number) => {
    const first = nextOrder;
    nextOrder += events;
    await synthesiseLog(h.book.events, events, first);
  };

  before(async () => {
    h = await startOrderbookService({ STREAM_HEARTBEAT_MS: '200', STREAM_MAX_BUFFERED_BYTES: String(BOUND) });
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  after(() => h?.stop());

  it('answers 400 {errorType, description} to bad parameters', async () => {
    for (const query of ['?owner=0x12', '?orderUid=abc', '?type=Nope', '?type=OrderCreated,', '?after=-1', '?after=x', '?after=1&after=2', '?colour=red']) {
      const res = await get(h.api, `/events/stream${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(typeof res.json.errorType, 'string', query);
      assert.ok(res.json.description.length > 0, query);
    }
    const res = await get(h.api, '/events/stream', { 'last-event-id': 'yesterday' });
    assert.equal(res.status, 400);
    assert.match(res.json.description, /Last-Event-ID/);
  });

  it('sends new events live, each with its position as id and the /events item as data', async () => {
    const stream = await open();
    assert.equal(stream.status, 200);
    assert.match(stream.response.headers['content-type']!, /^text\/event-stream/);
    const alice = await h.trader({ [TKA]: e18(10) });
    const order = await signOrder(alice, h.domain, { sellToken: TKA, buyToken: TKB, sellAmount: e18(1), buyAmount: e18(1) });
    assert.equal((await postOrder(h.api, order.body)).status, 201);
    const [first] = await stream.waitFor(1);
    const item = JSON.parse(first.data);
    assert.equal(item.type, 'OrderCreated');
    assert.equal(item.data.uid, order.uid);
    assert.equal(first.id, String(item.position));
    const listed = (await get(h.api, `/events?after=${item.position - 1}&limit=1`)).json;
    assert.deepEqual(listed, [item]);
    assert.equal(first.data, JSON.stringify(listed[0]), 'the same bytes as the /events item');
  });

  it('sends heartbeat comments while idle', async () => {
    const stream = await open();
    await until(() => stream.comments.filter((c) => c.text === 'heartbeat').length >= 2, 'two heartbeats', 3000);
  });

  it('resumes with Last-Event-ID: exactly the 1,000 events appended while away, in order', async () => {
    const stream = await open('?after=0');
    const head = await h.book.events.head();
    await stream.waitFor(head);
    const lastSeen = stream.events[stream.events.length - 1].id!;
    assert.equal(lastSeen, String(head));
    stream.close();

    await appendSynthetic(1000);
    const again = await open('', { 'last-event-id': lastSeen });
    const events = await again.waitFor(1000);
    assert.deepEqual(
      events.map((e) => Number(e.id)),
      Array.from({ length: 1000 }, (_, i) => head + 1 + i),
    );
    const listed = (await get(h.api, `/events?after=${head}&limit=1000`)).json;
    assert.deepEqual(events.map((e) => JSON.parse(e.data)), listed);
    // One more event appended after them arrives next: nothing came twice or in between.
    await appendSynthetic(1);
    const [marker] = (await again.waitFor(1001)).slice(1000);
    assert.equal(Number(marker.id), head + 1001, 'nothing twice, nothing more');
    assert.equal(again.events.length, 1001);

    // ?after= does the same, and Last-Event-ID wins over it.
    const byQuery = await open(`?after=${head + 990}`);
    assert.deepEqual((await byQuery.waitFor(10)).map((e) => Number(e.id)), Array.from({ length: 10 }, (_, i) => head + 991 + i));
    const both = await open(`?after=0`, { 'last-event-id': String(head + 999) });
    assert.equal((await both.waitFor(1))[0].id, String(head + 1000));
  });

  it('filters by owner, orderUid and type, in catch-up and live', async () => {
    const bob = await h.trader({ [TKA]: e18(10) });
    const order = await signOrder(bob, h.domain, { sellToken: TKA, buyToken: TKB, sellAmount: e18(1), buyAmount: e18(2) });
    const byOwner = await open(`?owner=${order.owner.toUpperCase().replace('0X', '0x')}&after=0`);
    const byUid = await open(`?orderUid=${order.uid}&after=0`);
    const cancellations = await open('?type=OrderCancelled,PresignatureRevoked');
    await appendSynthetic(50); // other owners' events, including cancellations
    assert.equal((await postOrder(h.api, order.body)).status, 201);
    assert.equal((await deleteOrder(h.api, order.uid, await signCancellation(bob, h.domain, order.uid))).status, 200);
    const types = (c: SseClient) => c.events.map((e) => JSON.parse(e.data).type);
    await byOwner.waitFor(2);
    await byUid.waitFor(2);
    assert.deepEqual(types(byOwner), ['OrderCreated', 'OrderCancelled']);
    assert.deepEqual(types(byUid), ['OrderCreated', 'OrderCancelled']);
    await until(() => cancellations.events.some((e) => JSON.parse(e.data).data.uid === order.uid), 'the cancellation');
    assert.ok(cancellations.events.length > 1, 'the synthetic cancellations too');
    assert.ok(types(cancellations).every((t) => t === 'OrderCancelled'));
  });

  it('the solver stream gives the current ETags, then each new one as the solvable set changes', async () => {
    const solver = await openSse(`${h.api}/solver/stream`);
    clients.push(solver);
    await solver.waitFor(2);
    const ofView = (view: string) => solver.events.filter((e) => e.event === view).map((e) => JSON.parse(e.data).id as string);
    // The earlier tests' events may still be reaching the view: the stream's newest ETag is the current one
    // once they have.
    const etagOf = async (path: string) => (await get(h.api, path)).headers.get('etag');
    await until(async () => ofView('solvable_orders').at(-1) === (await etagOf('/solvable_orders')), 'the current solvable_orders ETag on the stream');
    await until(async () => ofView('auction').at(-1) === (await etagOf('/auction')), 'the current auction ETag on the stream');
    const current = ofView('solvable_orders').at(-1);
    const carol = await h.trader({ [TKA]: e18(10) });
    const order = await signOrder(carol, h.domain, { sellToken: TKA, buyToken: TKB, sellAmount: e18(1), buyAmount: e18(3) });
    assert.equal((await postOrder(h.api, order.body)).status, 201);
    const latest = (view: string) => ofView(view).at(-1);
    await until(
      async () => ofView('solvable_orders').length >= 2 && (await get(h.api, '/solvable_orders', { 'if-none-match': latest('solvable_orders')! })).status === 304,
      'the new ETag on the stream',
    );
    assert.notEqual(latest('solvable_orders'), current);
    assert.ok((await get(h.api, '/solvable_orders')).json.some((o: { uid: string }) => o.uid === order.uid));
    await until(
      async () => ofView('auction').length >= 2 && (await get(h.api, '/auction', { 'if-none-match': latest('auction')! })).status === 304,
      'the new auction ETag on the stream',
    );
  });

  it('cuts off a client that stops reading at the bound, while another one is not held back by it', async () => {
    const from = await h.book.events.head();
    const stalled = await open();
    const reader = await open();
    await until(() => h.book.feed.readers >= 2, 'both clients live');
    stalled.pause();

    // Appends synthetic orders a batch at a time (their events acknowledged together), and before the next
    // batch waits for the reading client to have this one. A feed that waited for the stalled client would
    // hold the reader back, nothing more would be appended, the stalled client would never reach the bound,
    // and the wait would end at its hang guard. How much the stalled client costs the reader's latency is a
    // figure of `npm run bench -- live` (live.stream_stalled_neighbour).
    let n = 5_000_000;
    let whileStalled = 0;
    for (;;) {
      if (n >= 5_030_000) assert.fail('the stalled client was never cut off');
      const batch = Array.from({ length: 20 }, () => orderEvents(n++));
      const positions = await Promise.all(
        batch.map(async (events) => (await h.book.events.append(orderStreamId((events[0].data as { uid: string }).uid), events, 'no_stream')).position),
      );
      const last = Math.max(...positions);
      await until(() => Number(reader.events.at(-1)?.id) >= last, `event ${last} on the reading client`, HANG_GUARD_MS);
      if (h.book.feed.readers < 2) break;
      whileStalled++;
    }
    assert.ok(whileStalled > 0, 'the reading client had batches while the stalled one was still connected');
    const head = await h.book.events.head();
    await reader.waitFor(head - from);

    // The stalled client, reading again, gets what was buffered and then the last message, which says where to resume.
    stalled.resume();
    await until(() => stalled.ended, 'the stalled stream to end', 10_000);
    const last = stalled.events[stalled.events.length - 1];
    assert.equal(last.event, 'slow-consumer');
    const body = JSON.parse(last.data);
    assert.equal(body.errorType, 'SlowConsumer');
    const received = stalled.events.slice(0, -1).map((e) => Number(e.id));
    assert.ok(received.length > 0 && received.length < head - from, `cut off early (${received.length} of ${head - from} events)`);
    assert.deepEqual(received, Array.from({ length: received.length }, (_, i) => from + 1 + i));
    const resumeAt = received[received.length - 1];
    assert.match(body.description, new RegExp(`Last-Event-ID: ${resumeAt}\\b`));
    const resumed = await open('', { 'last-event-id': String(resumeAt) });
    const rest = await resumed.waitFor(head - resumeAt, 30_000);
    assert.equal(Number(rest[0].id), resumeAt + 1);
    assert.equal(Number(rest[rest.length - 1].id), head);
  });
});
