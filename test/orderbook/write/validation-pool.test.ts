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

const DOMAIN = gpv2Domain(1, '0x9008D19f58AAbD9eD0D60971565AA8510560ab41');
const CONTEXT = { domainSeparator: domainSeparator(DOMAIN), now: 1_800_000_000, minValidToSeconds: 60 };

function outcome(fn: () => unknown): unknown {
  try {
    return { order: fn() };
  } catch (err) {
    assert.ok(err instanceof OrderbookError, String(err));
    return { code: err.code, errorType: err.errorType, description: err.description };
  }
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
      const { body } = await signOrder(Wallet.createRandom(), DOMAIN, {
        sellToken: '0x' + 'a1'.repeat(20),
        buyToken: '0x' + 'b2'.repeat(20),
        sellAmount: 1000n,
        buyAmount: 900n,
        validTo: CONTEXT.now + 3600,
      });
      await single.validate(body, CONTEXT);
      await (single as unknown as { workers: { terminate(): Promise<number> }[] }).workers[0].terminate();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const again = await single.validate(body, CONTEXT);
      assert.equal(again.sellAmount, 1000n);
    } finally {
      await single.close();
    }
  });

  it('refuses work once closed', async () => {
    const closed = new ValidationPool(1);
    await closed.close();
    await assert.rejects(closed.validate({}, CONTEXT), /closed/);
  });
});
