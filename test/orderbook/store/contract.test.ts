/**
 * The event store contract, run against every implementation: SQLite always, PostgreSQL when DATABASE_URL
 * is set. Each test gets an empty store of its own (a temporary file, or a fresh schema that is dropped).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PostgresEventStore } from '../../../src/orderbook/store/postgres.js';
import { SqliteEventStore } from '../../../src/orderbook/store/sqlite.js';
import {
  ConcurrencyError,
  InvalidAppendError,
  type EventStore,
  type NewEvent,
  type StoredEvent,
} from '../../../src/orderbook/store/types.js';
import type { WriterJob, WriterTarget } from '../../support/eventstore-writer.js';
import { until } from '../../support/wait.js';

const DATABASE_URL = process.env.DATABASE_URL;
const WRITER_SCRIPT = fileURLToPath(new URL('../../support/eventstore-writer.js', import.meta.url));

/** Where one test's events live; open() may be called several times for several instances on it. */
interface Location {
  open(): Promise<EventStore>;
  target: WriterTarget;
  drop(): Promise<void>;
}

interface Implementation {
  name: string;
  /** Why the suite cannot run here, if it cannot. */
  unavailable?: string;
  /** Whether another instance on the same location sees this one's appends (another process). */
  shared: boolean;
  create(): Promise<Location>;
}

let schemaCounter = 0;

const implementations: Implementation[] = [
  {
    name: 'SQLite',
    shared: false,
    async create() {
      const dir = mkdtempSync(join(tmpdir(), 'ethgate-eventstore-'));
      const path = join(dir, 'events.sqlite');
      return {
        open: async () => new SqliteEventStore(path),
        target: { kind: 'sqlite', path },
        drop: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'PostgreSQL',
    unavailable: DATABASE_URL ? undefined : 'DATABASE_URL is not set',
    shared: true,
    async create() {
      const url = DATABASE_URL!;
      const schema = `es_test_${process.pid}_${Date.now().toString(36)}_${++schemaCounter}`;
      return {
        open: () => PostgresEventStore.open({ connectionString: url, schema }),
        target: { kind: 'postgres', url, schema },
        async drop() {
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          try {
            await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          } finally {
            await client.end();
          }
        },
      };
    },
  },
];

function event(type: string, data: unknown = {}): NewEvent {
  return { type, schemaVersion: 1, data };
}

/** Waits until `predicate` holds, checking whenever the store reports a head and every 20 ms. */

interface Writer {
  /** Acknowledged appends: position → stream id. */
  acks: Map<number, string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  kill(): void;
}

function startWriter(job: WriterJob): Writer {
  const child = spawn(process.execPath, [WRITER_SCRIPT, JSON.stringify(job)], {
    env: { ...process.env, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const acks = new Map<number, string>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const match = /^(\d+) (\S+)$/.exec(line);
    if (match) acks.set(Number(match[1]), match[2]);
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  return { acks, exited, kill: () => child.kill('SIGKILL') };
}

async function readWholeLog(store: EventStore): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  for (;;) {
    const page = await store.readAll(all.length === 0 ? 0 : all[all.length - 1].position, 1000);
    if (page.length === 0) return all;
    all.push(...page);
  }
}

for (const impl of implementations) {
  describe(`event store contract: ${impl.name}`, function () {
    let location: Location;
    let opened: EventStore[];
    let store: EventStore;

    /** Another instance on the same data: for PostgreSQL, another connection pool, as another process has. */
    async function openAnother(): Promise<EventStore> {
      const another = await location.open();
      opened.push(another);
      return another;
    }

    before(function () {
      if (impl.unavailable) this.skip();
    });

    beforeEach(async function () {
      location = await impl.create();
      opened = [];
      store = await openAnother();
    });

    afterEach(async function () {
      await Promise.all(opened.map((s) => s.close()));
      await location.drop();
    });

    it('reads back what was appended, in stream and global order', async function () {
      const data = {
        amount: (2n ** 256n - 1n).toString(),
        nested: { list: [1, 2.5, null, true], text: 'ünïcödé ✓ 🦄 \\u0000 "q"' },
      };
      const before = Date.now();
      const cancelled = { type: 'OrderCancelled', schemaVersion: 2, data: null };
      const result = await store.append('order-1', [event('OrderCreated', data), cancelled], 'no_stream');
      assert.deepEqual(result, { streamVersion: 2, position: 2 });
      const second = await store.append('order-2', [event('OrderCreated', [])], 'no_stream');
      assert.deepEqual(second, { streamVersion: 1, position: 3 });

      const stream = await store.readStream('order-1');
      assert.deepEqual(
        stream.map(({ recordedAt, ...rest }) => rest),
        [
          { type: 'OrderCreated', schemaVersion: 1, data, position: 1, streamId: 'order-1', streamVersion: 1 },
          { type: 'OrderCancelled', schemaVersion: 2, data: null, position: 2, streamId: 'order-1', streamVersion: 2 },
        ],
      );
      for (const { recordedAt } of stream) {
        assert.match(recordedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        const time = Date.parse(recordedAt);
        assert.ok(time >= before - 1000 && time <= Date.now() + 1000, `recordedAt ${recordedAt} is now`);
      }
      assert.deepEqual(await store.readAll(0, 10), [...stream, ...(await store.readStream('order-2'))]);
      assert.deepEqual(await store.readStream('no-such-stream'), []);
    });

    it('applies the expected version rules and writes nothing when they fail', async function () {
      await store.append('s', [event('A')], 'no_stream');
      await assert.rejects(store.append('s', [event('B')], 'no_stream'), (err: unknown) => {
        assert.ok(err instanceof ConcurrencyError);
        assert.equal(err.streamId, 's');
        assert.equal(err.expected, 'no_stream');
        assert.equal(err.actual, 1);
        return true;
      });
      assert.deepEqual(await store.append('s', [event('B'), event('C')], 1), { streamVersion: 3, position: 3 });
      await assert.rejects(store.append('s', [event('D')], 1), { actual: 3, expected: 1 });
      await assert.rejects(store.append('s', [event('D')], 4), ConcurrencyError);
      await assert.rejects(store.append('s', [event('D')], 0), ConcurrencyError);
      assert.deepEqual(await store.append('s', [event('D')], 'any'), { streamVersion: 4, position: 4 });
      assert.deepEqual(await store.append('t', [event('A')], 0), { streamVersion: 1, position: 5 });
      assert.deepEqual(await store.append('u', [event('A')], 'any'), { streamVersion: 1, position: 6 });
      await assert.rejects(store.append('v', [event('A')], 1), { actual: 0 });

      assert.deepEqual((await store.readStream('s')).map((e) => e.type), ['A', 'B', 'C', 'D']);
      assert.deepEqual(await store.readStream('v'), []);
      assert.equal(await store.head(), 6);
    });

    it('refuses malformed appends on their own, without failing the appends batched with them', async function () {
      const bad: Array<[string, NewEvent[], unknown]> = [
        ['s', [], 'any'],
        ['', [event('A')], 'any'],
        ['s', [event('A')], -1],
        ['s', [event('A')], 1.5],
        ['s', [event('A')], 'latest'],
        ['s', [{ type: '', schemaVersion: 1, data: {} }], 'any'],
        ['s', [{ type: 'A', schemaVersion: 0, data: {} }], 'any'],
        ['s', [{ type: 'A', schemaVersion: 1, data: undefined }], 'any'],
        ['s', [{ type: 'A', schemaVersion: 1, data: () => 1 }], 'any'],
        ['s', [event('A', { n: 1n })], 'any'],
        ['s', [event('A', { text: 'nul \u0000 inside' })], 'any'],
        ['s', [event('A', { ['key\u0000']: 1 })], 'any'],
        ['s', [event('A', { text: 'lone \ud800 surrogate' })], 'any'],
        ['s\u0000', [event('A')], 'any'],
      ];
      const good = [
        store.append('good-1', [event('A', { text: 'escaped \\u0000 is text, pair 🦄 is fine' })], 'no_stream'),
        ...bad.map(([streamId, events, expected]) =>
          assert.rejects(store.append(streamId, events, expected as 'any'), InvalidAppendError),
        ),
        store.append('good-2', [event('A')], 'no_stream'),
      ];
      await Promise.all(good);
      const log = await store.readAll(0, 10);
      assert.deepEqual(log.map((e) => e.streamId), ['good-1', 'good-2']);
      assert.deepEqual(log[0].data, { text: 'escaped \\u0000 is text, pair 🦄 is fine' });
    });

    it('lets exactly one of 50 concurrent appends with the same expected version through', async function () {
      for (const expected of ['no_stream', 1] as const) {
        const results = await Promise.allSettled(
          Array.from({ length: 50 }, (_, i) => store.append('contended', [event('Attempt', { i })], expected)),
        );
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.filter((r) => r.status === 'rejected');
        assert.equal(won.length, 1, `exactly one append expecting ${expected} wins`);
        for (const r of lost) assert.ok((r as PromiseRejectedResult).reason instanceof ConcurrencyError);
      }
      const stream = await store.readStream('contended');
      assert.deepEqual(stream.map((e) => e.streamVersion), [1, 2]);
      assert.equal(await store.head(), 2);
    });

    it('gives concurrent appends to many streams unique, increasing positions without gaps', async function () {
      const appends = Array.from({ length: 300 }, (_, i) => {
        const count = (i % 3) + 1;
        const events = Array.from({ length: count }, (_, k) => event('E', { i, k }));
        return store.append(`stream-${i}`, events, 'no_stream').then((result) => ({ i, count, result }));
      });
      const results = await Promise.all(appends);
      const total = results.reduce((sum, r) => sum + r.count, 0);
      const log = await readWholeLog(store);
      assert.deepEqual(log.map((e) => e.position), Array.from({ length: total }, (_, k) => k + 1));
      for (const { i, count, result } of results) {
        assert.equal(result.streamVersion, count);
        const mine = log.filter((e) => e.streamId === `stream-${i}`);
        assert.deepEqual(mine.map((e) => e.streamVersion), Array.from({ length: count }, (_, k) => k + 1));
        assert.equal(mine[count - 1].position, result.position);
        // An append's events are contiguous in the log.
        assert.equal(mine[0].position, result.position - count + 1);
      }
      // Issued in order within one process, so also positioned in that order.
      const positions = results.map((r) => r.result.position);
      assert.deepEqual(positions, [...positions].sort((a, b) => a - b));
    });

    it('appends to several streams all or nothing: one stale expected version writes none of them', async function () {
      await store.append('m-1', [event('A')], 'no_stream');
      await store.append('m-2', [event('A'), event('B')], 'no_stream');
      // m-2 is at version 2, not 1: neither stream nor the new m-3 gets anything.
      await assert.rejects(
        store.appendStreams([
          { streamId: 'm-1', events: [event('C')], expected: 1 },
          { streamId: 'm-2', events: [event('C')], expected: 1 },
          { streamId: 'm-3', events: [event('C')], expected: 'no_stream' },
        ]),
        (err: unknown) => err instanceof ConcurrencyError && err.streamId === 'm-2' && err.expected === 1 && err.actual === 2,
      );
      assert.equal(await store.head(), 3);
      assert.deepEqual((await store.readStream('m-1')).map((e) => e.type), ['A']);
      assert.deepEqual(await store.readStream('m-3'), []);

      const results = await store.appendStreams([
        { streamId: 'm-1', events: [event('C')], expected: 1 },
        { streamId: 'm-2', events: [event('C'), event('D')], expected: 2 },
        { streamId: 'm-3', events: [event('C')], expected: 'no_stream' },
      ]);
      assert.deepEqual(results, [
        { streamVersion: 2, position: 4 },
        { streamVersion: 4, position: 6 },
        { streamVersion: 1, position: 7 },
      ]);
      assert.deepEqual((await store.readAll(3, 10)).map((e) => [e.streamId, e.streamVersion, e.type]), [
        ['m-1', 2, 'C'],
        ['m-2', 3, 'C'],
        ['m-2', 4, 'D'],
        ['m-3', 1, 'C'],
      ]);
      await assert.rejects(store.appendStreams([]), InvalidAppendError);
      await assert.rejects(
        store.appendStreams([
          { streamId: 'm-4', events: [event('A')], expected: 'any' },
          { streamId: 'm-4', events: [event('B')], expected: 'any' },
        ]),
        InvalidAppendError,
      );
      await assert.rejects(store.appendStreams([{ streamId: 'm-4', events: [], expected: 'any' }]), InvalidAppendError);
      assert.equal(await store.head(), 7);
    });

    it('lets a single append that moves one of its streams first make a concurrent multi-stream append fail whole', async function () {
      await store.append('x-1', [event('A')], 'no_stream');
      await store.append('x-2', [event('A')], 'no_stream');
      // Issued in the same turn, so batched together: the single append is queued first and wins.
      const [single, multi] = await Promise.allSettled([
        store.append('x-2', [event('Trade')], 1),
        store.appendStreams([
          { streamId: 'x-1', events: [event('Cancel')], expected: 1 },
          { streamId: 'x-2', events: [event('Cancel')], expected: 1 },
        ]),
      ]);
      assert.equal(single.status, 'fulfilled');
      assert.ok(multi.status === 'rejected' && multi.reason instanceof ConcurrencyError && multi.reason.streamId === 'x-2');
      assert.deepEqual((await readWholeLog(store)).map((e) => `${e.streamId}:${e.type}`), ['x-1:A', 'x-2:A', 'x-2:Trade']);
    });

    it('folds a stream with aggregateStream, giving its version', async function () {
      const evolve = (state: string[], e: StoredEvent) => [...state, `${e.type}@${e.streamVersion}`];
      assert.deepEqual(await store.aggregateStream('none', evolve, ['start']), { state: ['start'], version: 0 });
      await store.append('f', [event('A'), event('B')], 'no_stream');
      await store.append('other', [event('X')], 'no_stream');
      await store.append('f', [event('C')], 2);
      assert.deepEqual(await store.aggregateStream('f', evolve, []), { state: ['A@1', 'B@2', 'C@3'], version: 3 });
      const { version } = await store.aggregateStream('f', evolve, []);
      assert.deepEqual(await store.append('f', [event('D')], version), { streamVersion: 4, position: 5 });
    });

    it("gives concurrent 'any' appends to one stream consecutive versions", async function () {
      const results = await Promise.all(Array.from({ length: 40 }, () => store.append('busy', [event('E')], 'any')));
      assert.deepEqual(results.map((r) => r.streamVersion).sort((a, b) => a - b), Array.from({ length: 40 }, (_, k) => k + 1));
      assert.deepEqual((await store.readStream('busy')).map((e) => e.streamVersion), Array.from({ length: 40 }, (_, k) => k + 1));
    });

    it('pages through the global log', async function () {
      for (let i = 0; i < 25; i++) await store.append(`p-${i % 4}`, [event('E', { i })], 'any');
      const page = async (after: number, limit: number) => (await store.readAll(after, limit)).map((e) => e.position);
      const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => from + k);
      assert.deepEqual(await page(0, 10), range(1, 10));
      assert.deepEqual(await page(10, 10), range(11, 20));
      assert.deepEqual(await page(20, 10), range(21, 25));
      assert.deepEqual(await page(25, 10), []);
      assert.deepEqual(await page(3, 1), [4]);
      assert.deepEqual(await page(0, 0), []);
      assert.deepEqual((await store.readAll(20, 10)).map((e) => (e.data as { i: number }).i), range(20, 24));
      await assert.rejects(store.readAll(-1, 10), RangeError);
      await assert.rejects(store.readAll(0, -1), RangeError);
      await assert.rejects(store.readAll(0.5, 10), RangeError);
    });

    it('reads whole streams in ranges cut at its stream boundaries', async function () {
      assert.deepEqual(await store.streamBoundaries(3), [], 'no streams, no cuts');
      for (let i = 0; i < 60; i++) await store.append(`share-${i % 12}`, [event('E', { i })], 'any');
      const all = (await store.readAll(0, 1000)).map((e) => e.position);
      assert.deepEqual(await store.streamBoundaries(1), []);
      const cuts = await store.streamBoundaries(3);
      assert.equal(cuts.length, 2);
      const starts = ['', ...cuts];
      const read = async (from: string, before: string | undefined, upTo: number) => {
        const events: StoredEvent[] = [];
        for (let after = { streamId: from, version: 0 }; ; ) {
          const page = await store.readStreams({ after, before, upTo, limit: 7 });
          if (page.length === 0) return events;
          events.push(...page);
          after = { streamId: page[page.length - 1].streamId, version: page[page.length - 1].streamVersion };
        }
      };
      const ranges = await Promise.all(starts.map((from, i) => read(from, starts[i + 1], all[all.length - 1])));
      assert.deepEqual(ranges.flat().map((e) => e.position).sort((a, b) => a - b), all, 'every event in exactly one range');
      // Twelve streams of five events cut at the 20th and 40th event: four whole streams in each range.
      assert.deepEqual(ranges.map((r) => r.length), [20, 20, 20]);
      const rangeOf = new Map<string, number>();
      ranges.forEach((range, index) => {
        for (const [i, e] of range.entries()) {
          assert.equal(rangeOf.get(e.streamId) ?? index, index, `stream ${e.streamId} in one range`);
          rangeOf.set(e.streamId, index);
          const previous = range[i - 1];
          if (previous?.streamId === e.streamId) assert.equal(e.streamVersion, previous.streamVersion + 1, 'a stream oldest first');
          else assert.equal(e.streamVersion, 1, 'a stream whole and together');
        }
      });
      assert.equal(rangeOf.size, 12);
      const upTo = all[29];
      assert.deepEqual((await read('', undefined, upTo)).map((e) => e.position).sort((a, b) => a - b), all.slice(0, 30), 'only events up to upTo');
      await assert.rejects(store.readStreams({ after: { streamId: '', version: -1 }, upTo, limit: 1 }), RangeError);
      await assert.rejects(store.readStreams({ after: { streamId: '', version: 0 }, upTo: -1, limit: 1 }), RangeError);
      await assert.rejects(store.readStreams({ after: { streamId: '', version: 0 }, upTo, limit: 0.5 }), RangeError);
      await assert.rejects(store.streamBoundaries(0), RangeError);
    });

    it('reports the head', async function () {
      assert.equal(await store.head(), 0);
      await store.append('h', [event('A'), event('B')], 'no_stream');
      assert.equal(await store.head(), 2);
      await assert.rejects(store.append('h', [event('C')], 'no_stream'), ConcurrencyError);
      assert.equal(await store.head(), 2);
      await store.append('i', [event('A')], 'no_stream');
      assert.equal(await store.head(), 3);
    });

    it(`tells subscribers about new events${impl.shared ? ', also of another process' : ''}`, async function () {
      const heard: number[] = [];
      const stopped: number[] = [];
      const unsubscribe = store.subscribe((head) => stopped.push(head));
      store.subscribe((head) => heard.push(head));
      await store.append('a', [event('A'), event('B')], 'no_stream');
      await until(() => heard.includes(2), 'the head after a local append', 20_000);
      unsubscribe();
      await store.append('a', [event('C')], 2);
      await until(() => heard.includes(3), 'the head after a second local append', 20_000);
      assert.deepEqual(stopped, [2], 'an ended subscription hears nothing more');
      assert.deepEqual(heard, [2, 3], 'each new head once, in order');

      if (impl.shared) {
        const other = await openAnother();
        const heardThere: number[] = [];
        other.subscribe((head) => heardThere.push(head));
        await (other as PostgresEventStore).listening();
        await store.append('b', [event('A')], 'no_stream');
        await until(() => heardThere.includes(4), "the other instance hearing of this one's append", 20_000);
        await other.append('c', [event('A')], 'no_stream');
        await until(() => heard.includes(5), "this instance hearing of the other one's append", 20_000);
        assert.deepEqual(heard, [2, 3, 4, 5]);
      }
    });

    it('keeps the events across close and reopen', async function () {
      await store.append('keep', [event('A', { x: 1 }), event('B', { y: [2] })], 'no_stream');
      await store.append('other', [event('A')], 'no_stream');
      const before = await store.readAll(0, 100);
      await store.close();
      store = await openAnother();
      assert.deepEqual(await store.readAll(0, 100), before);
      assert.equal(await store.head(), 3);
      await assert.rejects(store.append('keep', [event('C')], 'no_stream'), ConcurrencyError);
      assert.deepEqual(await store.append('keep', [event('C')], 2), { streamVersion: 3, position: 4 });
    });

    it('settles the appends already taken when closed, and refuses later ones', async function () {
      const pending = Array.from({ length: 100 }, (_, i) => store.append(`closing-${i}`, [event('E')], 'no_stream'));
      await store.close();
      assert.equal((await Promise.all(pending)).length, 100);
      await assert.rejects(store.append('late', [event('E')], 'any'), /closed/);
      store = await openAnother();
      assert.equal(await store.head(), 100);
    });

    it('keeps every acknowledged append when the writing process is killed with SIGKILL', async function () {
      const writer = startWriter({ target: location.target, prefix: 'burst', concurrency: 50 });
      await until(() => writer.acks.size >= 500, '500 acknowledged appends', 30_000);
      writer.kill();
      const { signal, stderr } = await writer.exited;
      assert.equal(signal, 'SIGKILL', `the writer was killed mid-burst, not finished (stderr: ${stderr})`);
      const acknowledged = new Map(writer.acks);

      const reopened = await openAnother();
      const log = await readWholeLog(reopened);
      assert.deepEqual(log.map((e) => e.position), Array.from({ length: log.length }, (_, k) => k + 1), 'no gaps');
      assert.equal(await reopened.head(), log.length);
      const byPosition = new Map(log.map((e) => [e.position, e]));
      for (const [position, streamId] of acknowledged) {
        const found = byPosition.get(position);
        assert.ok(found, `acknowledged position ${position} survived`);
        assert.equal(found.streamId, streamId);
        assert.equal(found.streamVersion, 1);
      }
      assert.ok(log.length >= acknowledged.size);
    });

    if (impl.shared) {
      it('listens again after its LISTEN connection is cut', async function () {
        const other = (await openAnother()) as PostgresEventStore;
        const heard: number[] = [];
        other.subscribe((head) => heard.push(head));
        await other.listening();
        const admin = new pg.Client({ connectionString: DATABASE_URL });
        await admin.connect();
        try {
          const { rows } = await admin.query(
            `SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity WHERE query = $1`,
            [`LISTEN "${(location.target as { schema: string }).schema}_events"`],
          );
          assert.deepEqual(rows, [{ cut: true }]);
        } finally {
          await admin.end();
        }
        await store.append('after-cut', [event('A')], 'no_stream');
        await until(() => heard.includes(1), 'the append made while the connection was down', 20_000);
        await other.listening();
        await store.append('after-cut', [event('B')], 1);
        await until(() => heard.includes(2), 'an append once listening again', 20_000);
        assert.deepEqual(heard, [1, 2]);
      });

      it('shows a tailing reader every event, in increasing positions, while two processes append', async function () {
        const perWriter = 400;
        const writers = ['left', 'right'].map((prefix) =>
          startWriter({ target: location.target, prefix, concurrency: 20, count: perWriter }),
        );
        let finished = false;
        void Promise.all(writers.map((w) => w.exited)).then(() => (finished = true));

        const reader = await openAnother();
        let wake: (() => void) | undefined;
        reader.subscribe(() => wake?.());
        const seen: number[] = [];
        const streams = new Map<number, string>();
        for (;;) {
          const done = finished;
          const page = await reader.readAll(seen.length === 0 ? 0 : seen[seen.length - 1], 50);
          for (const e of page) {
            seen.push(e.position);
            streams.set(e.position, e.streamId);
          }
          if (page.length > 0) continue;
          if (done) break;
          // Wait for a notification, or poll soon, to look again at the log while the writers go on.
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, 5);
          });
        }

        for (const w of writers) {
          const { code, stderr } = await w.exited;
          assert.equal(code, 0, stderr);
          assert.equal(w.acks.size, perWriter);
        }
        assert.deepEqual(seen, Array.from({ length: 2 * perWriter }, (_, k) => k + 1), 'each position once, in order');
        for (const w of writers) {
          for (const [position, streamId] of w.acks) assert.equal(streams.get(position), streamId);
        }
      });
    }
  });
}
