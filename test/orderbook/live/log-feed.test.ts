/**
 * The log feed on its own, on a SQLite store: readers that join at any position while appends go on each
 * get every later event exactly once and in order, whether they catch up from far behind or join at the
 * head; the feed reads nothing while nobody listens.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../src/orderbook/store/sqlite.js';
import type { StoredEvent } from '../../../src/orderbook/store/types.js';
import { LogFeed } from '../../../src/orderbook/live/log-feed.js';
import { until } from '../../support/wait.js';
import { nextTurn } from '../../../src/shared/next-turn.js';

describe('log feed', function () {
  this.timeout(60_000);
  let dir: string;
  let store: SqliteEventStore;
  let feed: LogFeed;
  let streams = 0;
  const append = (n: number) =>
    Promise.all(Array.from({ length: n }, () => store.append(`s-${++streams}`, [{ type: 'Written', schemaVersion: 1, data: { n: streams } }], 'no_stream')));

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ethgate-feed-'));
    store = new SqliteEventStore(join(dir, 'events.sqlite'));
    feed = new LogFeed(store);
    await feed.start();
  });
  afterEach(async () => {
    feed.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A reader from `after` that records positions (skipping those it had, as the stream does). */
  function reader(after: number) {
    const got: number[] = [];
    let sent = after;
    const take = (events: StoredEvent[]) => {
      for (const e of events) {
        if (e.position <= sent) continue;
        sent = e.position;
        got.push(e.position);
      }
    };
    const joined = feed.catchUp(
      after,
      async (events) => {
        take(events);
        await nextTurn(); // a client reading at its own pace
        return true;
      },
      take,
    );
    return { got, joined };
  }

  it('gives each reader every event after its position once, in order, while appends go on', async () => {
    await append(2500);
    const readers: ReturnType<typeof reader>[] = [];
    const starts: number[] = [];
    const writing = (async () => {
      for (let i = 0; i < 20; i++) await append(50);
    })();
    for (let i = 0; i < 8; i++) {
      const at = Math.floor(Math.random() * (await store.head()));
      starts.push(at);
      readers.push(reader(at));
      await new Promise((r) => setTimeout(r, 5));
    }
    await writing;
    await Promise.all(readers.map((r) => r.joined));
    const head = await store.head();
    for (const [i, r] of readers.entries()) {
      await until(() => r.got.length >= head - starts[i], `reader ${i} to reach the head`);
      assert.deepEqual(r.got, Array.from({ length: head - starts[i] }, (_, k) => starts[i] + 1 + k), `reader from ${starts[i]}`);
    }
    assert.equal(feed.readers, 8);
  });

  it('moves on without reading while nobody listens', async () => {
    let reads = 0;
    const readAll = store.readAll.bind(store);
    store.readAll = (...args) => {
      reads++;
      return readAll(...args);
    };
    await append(100);
    await until(() => feed.position === 100, 'the feed to hear of the appends');
    assert.equal(reads, 0);
    const r = reader(100);
    assert.equal(await r.joined, true);
    await append(3);
    await until(() => r.got.length === 3, 'the live events');
    assert.deepEqual(r.got, [101, 102, 103]);
  });
});
