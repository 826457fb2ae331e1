/**
 * Validation on worker threads gives what validateOrderCreation gives on the event loop: the same validated
 * order (bigints included) or the same refusal (status, errorType, description), for orders sent together.
 */
import assert from 'node:assert/strict';
import { Wallet } from 'ethers';
import { domainSeparator, gpv2Domain } from '../../../src/orderbook/domain/eip712.js';
import { OrderbookError } from '../../../src/orderbook/domain/errors.js';
import { validateOrderCreation } from '../../../src/orderbook/domain/order.js';
import { ValidationPool } from '../../../src/orderbook/write/validation/pool.js';
import { signOrder } from '../../support/orders.js';
import { nextTurn } from '../../../src/shared/next-turn.js';

const DOMAIN = gpv2Domain(1, '0x9008D19f58AAbD9eD0D60971565AA8510560ab41');
const CONTEXT = { domainSeparator: domainSeparator(DOMAIN), now: 1_800_000_000, minValidToSeconds: 60 };

/** A valid order of a fresh owner, as the worker tests send it again and again. */
async function oneOrder(): Promise<unknown> {
  const { body } = await signOrder(Wallet.createRandom(), DOMAIN, {
    sellToken: '0x' + 'a1'.repeat(20),
    buyToken: '0x' + 'b2'.repeat(20),
    sellAmount: 1000n,
    buyAmount: 900n,
    validTo: CONTEXT.now + 3600,
  });
  return body;
}

function outcome(fn: () => unknown): unknown {
  try {
    return { order: fn() };
  } catch (err) {
    assert.ok(err instanceof OrderbookError, String(err));
    return { code: err.code, errorType: err.errorType, description: err.description };
  }
}

/** The pool's worker threads, to stop one as a crash would. */
function threadsOf(pool: ValidationPool): { terminate(): Promise<number> }[] {
  return (pool as unknown as { workers: { thread: { terminate(): Promise<number> } }[] }).workers.map((w) => w.thread);
}


describe('order validation on worker threads', function () {
  this.timeout(30_000);
  let pool: ValidationPool;
  before(() => (pool = new ValidationPool(2)));
  after(() => pool.close());

  it('answers every order of a burst as validateOrderCreation does, refusals included', async () => {
    const alice = Wallet.createRandom();
    const bodies: unknown[] = [];
    for (let i = 0; i < 20; i++) {
      const { body } = await signOrder(alice, DOMAIN, {
        sellToken: '0x' + 'a1'.repeat(20),
        buyToken: '0x' + 'b2'.repeat(20),
        sellAmount: 1000n + BigInt(i),
        buyAmount: 900n,
        validTo: CONTEXT.now + 3600,
      });
      bodies.push(body);
    }
    bodies.push({ ...(bodies[0] as object), sellAmount: '0' }, { ...(bodies[0] as object), from: Wallet.createRandom().address }, { nonsense: true }, 'text');
    const viaPool = await Promise.all(bodies.map((body) => pool.validate(body, CONTEXT).then((order) => ({ order }), (err: OrderbookError) => ({ code: err.code, errorType: err.errorType, description: err.description }))));
    const inline = bodies.map((body) => outcome(() => validateOrderCreation(body, CONTEXT)));
    assert.deepEqual(viaPool, inline);
    assert.equal(viaPool.filter((o) => 'order' in o).length, 20);
    assert.deepEqual(viaPool.slice(20).map((o) => (o as { errorType: string }).errorType), ['ZeroAmount', 'WrongOwner', 'MissingOrderData', 'InvalidOrderData']);
    assert.equal(typeof (viaPool[0] as { order: { sellAmount: unknown } }).order.sellAmount, 'bigint');
  });

  it('replaces a worker that stops', async () => {
    const single = new ValidationPool(1);
    try {
      const body = await oneOrder();
      await single.validate(body, CONTEXT);
      await threadsOf(single)[0].terminate();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const again = await single.validate(body, CONTEXT);
      assert.equal(again.sellAmount, 1000n);
    } finally {
      await single.close();
    }
  });

  it('a worker stopped mid-job fails only its own jobs; the other worker\'s finish and a new worker takes its place', async () => {
    const two = new ValidationPool(2);
    try {
      const body = await oneOrder();
      // One turn's jobs go to one worker as one message, the next turn's to the other (the less busy): each
      // worker holds hundreds of signature recoveries when the first is stopped.
      const JOBS = 400;
      const settle = (p: Promise<unknown>) => p.then(() => 'validated', (err: Error) => err.message);
      const first = Array.from({ length: JOBS }, () => settle(two.validate(body, CONTEXT)));
      await nextTurn();
      const second = Array.from({ length: JOBS }, () => settle(two.validate(body, CONTEXT)));
      await nextTurn();
      await threadsOf(two)[0].terminate();
      assert.deepEqual(new Set(await Promise.all(first)), new Set(['an order validation worker stopped']));
      assert.deepEqual(new Set(await Promise.all(second)), new Set(['validated']));
      // Both workers serve again: two turns, one on each.
      const after = [two.validate(body, CONTEXT)];
      await nextTurn();
      after.push(two.validate(body, CONTEXT));
      assert.deepEqual((await Promise.all(after)).map((o) => o.sellAmount), [1000n, 1000n]);
    } finally {
      await two.close();
    }
  });

  it('refuses work once closed', async () => {
    const closed = new ValidationPool(1);
    await closed.close();
    await assert.rejects(closed.validate({}, CONTEXT), /closed/);
  });
});
