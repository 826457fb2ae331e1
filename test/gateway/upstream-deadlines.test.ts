/**
 * The HTTP upstream's deadlines with calls settling in any order: the exchanges in flight are a list in the
 * order they started, swept from the oldest, and each answered one leaves it from wherever it stands. Calls
 * that hang among calls that are answered must each time out, the others must not, and the list must be
 * left empty and working. A fake upstream, since a real node cannot be made to hang on chosen calls.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { HttpUpstream } from '../../src/gateway/upstream/http.js';
import { UpstreamError } from '../../src/gateway/errors.js';

const TIMEOUT_MS = 400;

/** Answers each call with its first param after that many ms, or never when it is "hang". */
function selectiveUpstream() {
  const held: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString()) as { id: number; params: unknown[] };
      const [what] = call.params;
      if (what === 'hang') return void held.push(res);
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: what }));
      }, Number(what));
    });
  });
  return { server, held };
}

describe('HTTP upstream deadlines', function () {
  this.timeout(20_000);
  const { server, held } = selectiveUpstream();
  let upstream: HttpUpstream;

  before(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    upstream = new HttpUpstream({ name: 'selective', network: 'test', url: `http://127.0.0.1:${port}/`, timeoutMs: TIMEOUT_MS });
  });

  after(async () => {
    await upstream.close();
    for (const res of held) res.destroy();
    server.close();
  });

  it('times out exactly the hanging calls among answered ones, in any order of settling', async () => {
    // Answered after 0-150 ms in a shuffled order, every third call hangs: answered calls leave the list
    // from its middle, its head and its tail while hanging ones wait for their deadline.
    const plan = Array.from({ length: 30 }, (_, i) => (i % 3 === 1 ? 'hang' : String((i * 37) % 150)));
    const started = performance.now();
    const settled = await Promise.all(
      plan.map((what) =>
        upstream.send({ method: 'test_echo', params: [what] }).then(
          (outcome) => ({ outcome, ms: performance.now() - started }),
          (error: unknown) => ({ error, ms: performance.now() - started }),
        ),
      ),
    );
    settled.forEach((result, i) => {
      if (plan[i] === 'hang') {
        assert.ok('error' in result, `call ${i} should have timed out`);
        assert.ok(result.error instanceof UpstreamError && result.error.reason === 'timeout', String(result.error));
        assert.ok(result.ms >= TIMEOUT_MS, `call ${i} timed out after ${result.ms} ms, before its deadline`);
      } else {
        assert.ok('outcome' in result, `call ${i} failed: ${String((result as { error: unknown }).error)}`);
        assert.deepEqual(result.outcome, { result: plan[i] });
      }
    });
    assert.equal(held.length, 10);
  });

  it('answers again after every call in flight has left the list', async () => {
    assert.deepEqual(await upstream.send({ method: 'test_echo', params: ['5'] }), { result: '5' });
    await assert.rejects(upstream.send({ method: 'test_echo', params: ['hang'] }), (err: unknown) => err instanceof UpstreamError && err.reason === 'timeout');
    assert.deepEqual(await upstream.send({ method: 'test_echo', params: ['0'] }), { result: '0' });
  });
});
