/**
 * The solvable orders view (src/orderbook/read/solvable-view.ts) follows the `orders` read model by position,
 * one refresh at a time. A refresh that fails (the read model's store did not answer) fails the answers
 * waiting for it, and only those: the next refresh reads again from where the view stood.
 */
import assert from 'node:assert/strict';
import { SqliteEventStore } from '../../../src/orderbook/store/sqlite.js';
import { MemoryReadModelStore } from '../../../src/orderbook/read/models/memory.js';
import { ProjectionRunner } from '../../../src/orderbook/read/runner.js';
import { SolvableOrders, type SolvableAnswer } from '../../../src/orderbook/read/solvable-view.js';
import { solvableEncoding } from '../../../src/orderbook/api/encoding/solvable.js';
import { projections } from '../../../src/orderbook/read/projections/index.js';
import { orderStreamId } from '../../../src/orderbook/write/events.js';
import type { Query, Row } from '../../../src/orderbook/read/models/types.js';
import { logger } from '../../../src/shared/logger.js';
import { orderEvents } from '../../support/synthetic-log.js';

/** A memory read model store whose next `failures` finds fail, as a database that dropped its connection. */
class FlakyStore extends MemoryReadModelStore {
  failures = 0;

  override async find<Doc>(name: string, query: Query): Promise<Row<Doc>[]> {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('connection terminated unexpectedly');
    }
    return super.find<Doc>(name, query);
  }
}

const text = (answer: SolvableAnswer) => Buffer.concat(answer.body.buffers).toString();
const uids = (json: string) => (JSON.parse(json) as { uid: string }[]).map((o) => o.uid);

describe('solvable orders view', () => {
  let events: SqliteEventStore;
  let store: FlakyStore;
  let runner: ProjectionRunner;

  beforeEach(async () => {
    events = new SqliteEventStore(':memory:');
    store = new FlakyStore();
    runner = new ProjectionRunner(events, store, projections, logger);
    await runner.start();
  });
  afterEach(async () => {
    await runner.stop();
    await events.close();
  });

  /** Appends the creation of order n (a sell order valid until 2106) and waits for the read models. */
  const create = async (n: number): Promise<string> => {
    const [created] = orderEvents(n);
    const uid = (created.data as { uid: string }).uid;
    const { position } = await events.append(orderStreamId(uid), [created], 'no_stream');
    await runner.waitFor(position);
    return uid;
  };

  it('answers again after a refresh that failed, with the orders it had not read yet', async () => {
    const view = new SolvableOrders(store, runner, undefined, solvableEncoding('0x9008d19f58aabd9ed0d60971565aa8510560ab41'));
    await view.start();
    const first = await create(2);
    assert.deepEqual(uids(text(await view.answer(1_800_000_000))), [first]);

    // The next refresh fails: the one the runner's announcement starts, or the answer's own.
    store.failures = 1;
    const second = await create(4);
    await view.answer(1_800_000_000).catch((err: Error) => assert.match(err.message, /connection terminated/));
    assert.equal(store.failures, 0, 'a refresh met the failure');
    // The store answers again: the failed refresh does not hold the next ones back.
    assert.deepEqual(uids(text(await view.answer(1_800_000_000))).sort(), [first, second].sort());
  });
});
