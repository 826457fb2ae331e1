/**
 * The route gates (src/orderbook/api/route-gates.ts): listings and quotes each through their own gate,
 * every other route straight on; a request beyond a gate's places and queue is the catalogue's 503
 * ServiceUnavailable naming the variables, with Retry-After: 1, and its handler never runs. The listing
 * gate is also shown against the service as a process (test/hostile/bounded-reads.test.ts).
 */
import assert from 'node:assert/strict';
import type { Context } from 'koa';
import { OrderbookError } from '../../../src/orderbook/domain/errors.js';
import { routeGates } from '../../../src/orderbook/api/route-gates.js';
import { nextTurn } from '../../../src/shared/next-turn.js';

/** A request to the middleware: its context (headers set are kept) and a handler that ends when told. */
function request(method: string, path: string) {
  const headers: Record<string, string> = {};
  const ctx = { method, path, set: (name: string, value: string) => (headers[name] = value) } as unknown as Context;
  let ran = false;
  let end!: () => void;
  const handled = new Promise<void>((resolve) => (end = resolve));
  const next = async () => {
    ran = true;
    await handled;
  };
  return { ctx, next, headers, end, ran: () => ran };
}

describe('route gates', () => {
  const gates = routeGates({ list: { concurrency: 1, queue: 1 }, quote: { concurrency: 1, queue: 0 } });

  it('holds each class to its places and queue, apart from the other class and from every other route', async () => {
    const listing = [request('GET', '/api/v1/orders'), request('HEAD', '/api/v1/events'), request('GET', '/api/v1/trades')];
    const quote = [request('POST', '/api/v1/quote'), request('GET', '/api/v1/tokens/0x01/fee')];
    const other = request('GET', '/api/v1/orders/0xabc');
    const running = [listing[0], listing[1], quote[0], other].map((r) => gates(r.ctx, r.next));
    await nextTurn();
    assert.deepEqual([listing[0].ran(), listing[1].ran(), quote[0].ran(), other.ran()], [true, false, true, true]);

    for (const [r, variables] of [
      [listing[2], /LISTING_CONCURRENCY, LISTING_QUEUE/],
      [quote[1], /QUOTE_CONCURRENCY, QUOTE_QUEUE/],
    ] as const) {
      await assert.rejects(gates(r.ctx, r.next), (err: unknown) => {
        assert.ok(err instanceof OrderbookError);
        assert.equal(err.errorType, 'ServiceUnavailable');
        assert.match(err.description, variables);
        return true;
      });
      assert.equal(r.headers['Retry-After'], '1');
      assert.equal(r.ran(), false, 'a refused request is never handled');
    }

    listing[0].end();
    await nextTurn();
    assert.equal(listing[1].ran(), true, 'the waiting listing takes the freed place');
    for (const r of [listing[1], quote[0], other]) r.end();
    await Promise.all(running);
    const after = request('GET', '/api/v1/orders');
    after.end();
    await gates(after.ctx, after.next);
    assert.equal(after.ran(), true, 'free again once they are answered');
  });
});
