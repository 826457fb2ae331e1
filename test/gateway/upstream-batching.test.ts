/**
 * Reads to an HTTP upstream that arrive in the same turn go out as JSON-RPC batches (upstream/http.ts):
 * each call must still get exactly the answer anvil gives it alone, slow methods and writes must go alone,
 * and an upstream that refuses batches or drops an answer must cost the caller nothing but a second
 * exchange.
 * A real anvil answers; a relay in front of it records every exchange and, for the faults a real node
 * cannot be made to show, rewrites the batch answers.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { HttpUpstream } from '../../src/gateway/upstream/http.js';
import { UpstreamError } from '../../src/gateway/errors.js';
import type { UpstreamCall } from '../../src/gateway/upstream/types.js';
import type { RpcOutcome } from '../../src/gateway/jsonrpc.js';
import { AnvilProcess, readMetrics } from '../support/upstreams.js';
import { startTestService } from '../support/service.js';
import { postWithHost } from '../support/http.js';
import { DEV_KEYS, signedTransfer } from '../support/chain.js';
import { Transaction } from 'ethers';
import { registry } from '../../src/shared/metrics.js';

type Fault = 'none' | 'refuse-json' | 'refuse-400' | 'refuse-500' | 'garbage' | 'string-ids' | 'drop-second' | 'cut-poison' | 'busy';

/** An address whose balance the relay never asks for: any exchange that holds it loses its connection. */
const POISON = '0x00000000000000000000000000000000000dead0';

/** An HTTP relay to `target` that records each exchange's body and can refuse or spoil batch answers. */
class RecordingRelay {
  readonly bodies: unknown[] = [];
  fault: Fault = 'none';
  private readonly server: Server;

  constructor(private readonly target: string) {
    this.server = createServer((req, res) => void this.relay(req, res));
  }

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
  }

  close(): void {
    this.server.close();
    this.server.closeAllConnections();
  }

  /** Exchanges that carried a batch, and how many calls went alone. */
  get batches(): unknown[][] {
    return this.bodies.filter((b): b is unknown[] => Array.isArray(b));
  }

  get singles(): { method: string }[] {
    return this.bodies.filter((b): b is { method: string } => !Array.isArray(b));
  }

  private async relay(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    const body = JSON.parse(text) as unknown;
    this.bodies.push(body);
    const batch = Array.isArray(body);
    if (this.fault === 'cut-poison' && text.includes(POISON)) return void res.socket?.destroy();
    if (batch && (this.fault === 'refuse-400' || this.fault === 'refuse-500')) {
      res.writeHead(this.fault === 'refuse-400' ? 400 : 500, { 'content-type': 'text/plain' });
      return void res.end('batch requests are not allowed');
    }
    if (batch && this.fault === 'busy') {
      res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '1' });
      return void res.end('slow down');
    }
    if (batch && this.fault === 'garbage') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end('<html>what is this?</html>');
    }
    if (batch && this.fault === 'refuse-json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch requests are not supported' } }));
    }
    const answer = await fetch(this.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    let out = await answer.text();
    if (batch && this.fault === 'drop-second') out = JSON.stringify((JSON.parse(out) as { id: number }[]).filter((item) => item.id !== 1));
    if (batch && this.fault === 'string-ids') out = JSON.stringify((JSON.parse(out) as { id: number }[]).map((item) => ({ ...item, id: String(item.id) })));
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(out);
  }
}

/** Distinct calls with distinct answers: the dev accounts' balances and nonces, blocks by number. */
/** A metric's value in this process's registry, summed over the label sets that include `labels`. */
async function counted(name: string, labels: Record<string, string>): Promise<number> {
  const { values } = await registry.getSingleMetric(name)!.get();
  return values.filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x)).reduce((n, v) => n + v.value, 0);
}

function distinctCalls(accounts: string[]): UpstreamCall[] {
  return [
    ...accounts.map((a) => ({ method: 'eth_getBalance', params: [a, 'latest'] })),
    ...accounts.map((a) => ({ method: 'eth_getTransactionCount', params: [a, 'latest'] })),
    { method: 'eth_chainId', params: [] },
    { method: 'eth_getBlockByNumber', params: ['0x0', false] },
    { method: 'eth_getBalance', params: ['not an address', 'latest'] },
  ];
}

describe('HTTP upstream batching', function () {
  this.timeout(60_000);
  let anvil: AnvilProcess;
  let accounts: string[];
  /** What anvil answers each call when it comes alone. */
  let alone: (calls: UpstreamCall[]) => Promise<RpcOutcome[]>;

  before(async () => {
    anvil = await AnvilProcess.start({ chainId: 31337 });
    const direct = new HttpUpstream({ name: 'direct', network: 'test', url: anvil.url, timeoutMs: 10_000 });
    accounts = ((await direct.send({ method: 'eth_accounts', params: [] })).result as string[]).slice(0, 10);
    alone = (calls) => Promise.all(calls.map((c) => direct.send(c)));
  });

  after(async () => {
    await anvil.kill();
  });

  /** Runs `test` with an HttpUpstream reaching anvil through a RecordingRelay that makes `fault`. */
  async function through(
    fault: Fault,
    options: { batchCalls: number; batchRetryMs?: number; network?: string },
    test: (parts: { relay: RecordingRelay; upstream: HttpUpstream }) => Promise<void>,
  ): Promise<void> {
    const relay = new RecordingRelay(anvil.url);
    relay.fault = fault;
    const upstream = new HttpUpstream({ name: 'relayed', network: 'test', url: await relay.start(), timeoutMs: 10_000, ...options });
    try {
      await test({ relay, upstream });
    } finally {
      await upstream.close();
      relay.close();
    }
  }

  it("sends one turn's calls as batches of at most batchCalls, each call getting anvil's own answer", async () => {
    await through('none', { batchCalls: 8 }, async ({ relay, upstream }) => {
      const calls = distinctCalls(accounts);
      const outcomes = await Promise.all(calls.map((c) => upstream.send(c)));
      assert.deepEqual(outcomes, await alone(calls));
      // The invalid address is anvil's error for that call only.
      assert.ok(outcomes.at(-1)!.error, 'the bad call has its error');
      assert.ok(outcomes.slice(0, -1).every((o) => o.error === undefined));
      assert.deepEqual(relay.batches.map((b) => b.length), [8, 8, 7]);
      assert.equal(relay.singles.length, 0);
      assert.equal(upstream.batching, true);
    });
  });

  it('sends eth_getLogs and calls that run EVM code alone, so that they hold no other call back', async () => {
    await through('none', { batchCalls: 8 }, async ({ relay, upstream }) => {
      const slowOrLarge = [
        { method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: 'latest' }] },
        { method: 'eth_call', params: [{ to: accounts[1], data: '0x' }, 'latest'] },
        { method: 'eth_estimateGas', params: [{ from: accounts[0], to: accounts[1], value: '0x1' }] },
      ];
      const calls = [...distinctCalls(accounts).slice(0, 4), ...slowOrLarge];
      assert.deepEqual(await Promise.all(calls.map((c) => upstream.send(c))), await alone(calls));
      assert.deepEqual(relay.singles.map((s) => s.method).sort(), ['eth_call', 'eth_estimateGas', 'eth_getLogs']);
      assert.deepEqual(relay.batches.map((b) => b.length), [4]);
    });
  });

  it('sends a turn of one call, and the one call left over after full batches, alone rather than as a batch of one', async () => {
    await through('none', { batchCalls: 8, network: 'one-call' }, async ({ relay, upstream }) => {
      const [first, ...rest] = distinctCalls(accounts).slice(0, 10);
      assert.deepEqual([await upstream.send(first)], await alone([first]));
      assert.deepEqual(relay.singles, [{ jsonrpc: '2.0', id: 0, ...first }]);
      assert.equal(relay.batches.length, 0);
      assert.deepEqual(await Promise.all(rest.map((c) => upstream.send(c))), await alone(rest));
      assert.deepEqual(relay.batches.map((b) => b.length), [8]);
      assert.deepEqual(relay.singles.slice(1), [{ jsonrpc: '2.0', id: 0, ...rest[8] }]);
      const labels = { network: 'one-call', upstream: 'relayed' };
      assert.equal(await counted('ethgate_upstream_exchanges_total', { ...labels, kind: 'single' }), 2);
      assert.equal(await counted('ethgate_upstream_exchanges_total', { ...labels, kind: 'batch' }), 1);
      assert.equal(await counted('ethgate_upstream_batched_calls_total', labels), 8);
    });
  });

  it('fails each call of a batch answered 429 with that busy error, not sent again alone and not a refusal', async () => {
    await through('busy', { batchCalls: 8, network: 'busy-batch' }, async ({ relay, upstream }) => {
      const calls = distinctCalls(accounts).slice(0, 5);
      const settled = await Promise.allSettled(calls.map((c) => upstream.send(c)));
      const reasons = settled.map((s) => (s as PromiseRejectedResult).reason as UpstreamError);
      assert.ok(reasons.every((r) => r instanceof UpstreamError && r.reason === 'busy' && r.retryAfterMs === 1000));
      assert.equal(new Set(reasons).size, 1, 'the one error of the exchange');
      assert.equal(relay.batches.length, 1);
      assert.equal(relay.singles.length, 0);
      assert.equal(upstream.batching, true);
      assert.equal(await counted('ethgate_upstream_batch_refusals_total', { network: 'busy-batch', upstream: 'relayed' }), 0);
    });
  });

  it('fails the calls still waiting for the end of their turn when closed, sending nothing', async () => {
    const relay = new RecordingRelay(anvil.url);
    const upstream = new HttpUpstream({ name: 'relayed', network: 'test', url: await relay.start(), timeoutMs: 10_000, batchCalls: 8 });
    try {
      const waiting = distinctCalls(accounts).slice(0, 3).map((c) => upstream.send(c));
      await upstream.close();
      const settled = await Promise.allSettled(waiting);
      assert.ok(settled.every((s) => s.status === 'rejected' && s.reason instanceof UpstreamError && s.reason.reason === 'closed'));
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(relay.bodies.length, 0);
    } finally {
      relay.close();
    }
  });

  it('sends a call alone again when the batch answer left it out', async () => {
    await through('drop-second', { batchCalls: 8 }, async ({ relay, upstream }) => {
      const calls = distinctCalls(accounts).slice(0, 5);
      assert.deepEqual(await Promise.all(calls.map((c) => upstream.send(c))), await alone(calls));
      assert.equal(relay.batches.length, 1);
      assert.deepEqual(relay.singles, [{ jsonrpc: '2.0', id: 0, ...calls[1] }]);
      assert.equal(upstream.batching, true, 'one missing answer is not a refusal of batches');
    });
  });

  for (const fault of ['refuse-json', 'refuse-400', 'refuse-500', 'garbage', 'string-ids'] as const) {
    it(`answers every call of a refused batch by sending it alone, then sends calls alone for a while (${fault})`, async () => {
      const network = `refusals-${fault}`;
      await through(fault, { batchCalls: 8, batchRetryMs: 300, network }, async ({ relay, upstream }) => {
        const calls = distinctCalls(accounts).slice(0, 6);
        assert.deepEqual(await Promise.all(calls.map((c) => upstream.send(c))), await alone(calls));
        assert.equal(relay.batches.length, 1);
        assert.equal(relay.singles.length, 6);
        assert.equal(upstream.batching, false);
        // The next turn goes out call by call.
        assert.deepEqual(await Promise.all(calls.map((c) => upstream.send(c))), await alone(calls));
        assert.equal(relay.batches.length, 1);
        assert.equal(relay.singles.length, 12);
        // batchRetryMs later, a batch is tried again (and refused again: each call alone once more).
        await new Promise((resolve) => setTimeout(resolve, 350));
        assert.equal(upstream.batching, true);
        assert.deepEqual(await Promise.all(calls.map((c) => upstream.send(c))), await alone(calls));
        assert.equal(relay.batches.length, 2);
        assert.equal(relay.singles.length, 18);
        // Two batches, both refused; each call of them went again alone, as did the turn between them.
        const labels = { network, upstream: 'relayed' };
        assert.equal(await counted('ethgate_upstream_exchanges_total', { ...labels, kind: 'batch' }), 2);
        assert.equal(await counted('ethgate_upstream_batched_calls_total', labels), 12);
        assert.equal(await counted('ethgate_upstream_batch_refusals_total', labels), 2);
        assert.equal(await counted('ethgate_upstream_exchanges_total', { ...labels, kind: 'single' }), 18);
      });
    });
  }

  it('sends the reads of a batch whose connection dropped again alone, so that only the call the node chokes on fails', async () => {
    await through('cut-poison', { batchCalls: 8 }, async ({ relay, upstream }) => {
      const calls = distinctCalls(accounts).slice(0, 3);
      const poison = { method: 'eth_getBalance', params: [POISON, 'latest'] };
      const settled = await Promise.allSettled([poison, ...calls].map((c) => upstream.send(c)));
      const err = (settled[0] as PromiseRejectedResult).reason as UpstreamError;
      assert.ok(err instanceof UpstreamError);
      assert.equal(err.reason, 'connection-lost');
      assert.deepEqual(settled.slice(1).map((s) => (s as PromiseFulfilledResult<RpcOutcome>).value), await alone(calls));
      assert.equal(relay.batches.length, 1);
      assert.equal(relay.singles.length, 4);
      assert.equal(upstream.batching, true, 'a dropped connection says nothing about batches');
    });
  });

  it('sends writes alone, so that a batch can always be sent again call by call', async () => {
    await through('none', { batchCalls: 8 }, async ({ relay, upstream }) => {
      const raw = await signedTransfer(DEV_KEYS[1], 0, { chainId: 31337 });
      // Reads the transfer (from account 1 to account 2) cannot change.
      const reads = [{ method: 'eth_chainId', params: [] }, { method: 'eth_getBlockByNumber', params: ['0x0', false] }, { method: 'eth_getBalance', params: [accounts[5], 'latest'] }];
      const [sent, ...answers] = await Promise.all([{ method: 'eth_sendRawTransaction', params: [raw] }, ...reads].map((c) => upstream.send(c)));
      assert.equal(sent.result, Transaction.from(raw).hash);
      assert.deepEqual(answers, await alone(reads));
      assert.deepEqual(relay.singles.map((s) => s.method), ['eth_sendRawTransaction']);
      assert.deepEqual(relay.batches.map((b) => b.length), [3]);
    });
  });

  for (const configured of ['default', '1'] as const) {
    it(`serves concurrent clients through the service with UPSTREAM_BATCH_CALLS ${configured}, each its own answer`, async () => {
      const relay = new RecordingRelay(anvil.url);
      const env: Record<string, string> = { NETWORKS: 'mainnet', CHAIN_ID_MAINNET: '31337', UPSTREAM_MAINNET: await relay.start(), COALESCE_READS: 'false' };
      if (configured !== 'default') env.UPSTREAM_BATCH_CALLS = configured;
      const service = await startTestService(env);
      try {
        const metricsBefore = await readMetrics(service.url);
        const before = { metrics: metricsBefore, batches: relay.batches.length, batchedCalls: relay.batches.reduce((n, b) => n + b.length, 0) };
        // 200 clients at once over many connections: requests parsed in one turn share a batch.
        const calls = Array.from({ length: 200 }, (_, i) => distinctCalls(accounts)[i % 20]);
        const answers = await Promise.all(
          calls.map((c, id) => postWithHost(`${service.url}/`, 'mainnet.localhost', { jsonrpc: '2.0', id, ...c })),
        );
        const expected = await alone(calls);
        answers.forEach((answer, id) => {
          assert.equal(answer.status, 200);
          assert.deepEqual(answer.json, { jsonrpc: '2.0', id, ...expected[id] });
        });
        const batchedCalls = relay.batches.reduce((n, b) => n + b.length, 0);
        if (configured === 'default') assert.ok(batchedCalls > 0, 'some calls shared a batch');
        else assert.equal(relay.batches.length, 0);
        // The metrics say what the relay saw (the registry is the test process's: counted from `before`).
        const after = await readMetrics(service.url);
        const labels = { network: 'mainnet', upstream: 'mainnet/0' };
        const counted = (name: string, more: Record<string, string> = {}) =>
          after.value(name, { ...labels, ...more }) - before.metrics.value(name, { ...labels, ...more });
        assert.equal(counted('ethgate_upstream_exchanges_total', { kind: 'batch' }), relay.batches.length - before.batches);
        assert.equal(counted('ethgate_upstream_batched_calls_total'), batchedCalls - before.batchedCalls);
        assert.equal(counted('ethgate_upstream_batch_refusals_total'), 0);
        assert.ok(counted('ethgate_upstream_exchanges_total', { kind: 'single' }) >= (configured === 'default' ? 1 : 200));
      } finally {
        await service.stop();
        relay.close();
      }
    });
  }

  it('sends each call alone with batchCalls 1', async () => {
    await through('none', { batchCalls: 1 }, async ({ relay, upstream }) => {
      const calls = distinctCalls(accounts).slice(0, 4);
      assert.deepEqual(await Promise.all(calls.map((c) => upstream.send(c))), await alone(calls));
      assert.equal(relay.batches.length, 0);
      assert.equal(relay.singles.length, 4);
    });
  });
});
