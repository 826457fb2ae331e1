/**
 * Hedged reads (HEDGE_QUANTILE): two upstreams of one anvil, one of them behind a relay that holds every
 * answer for SLOW_MS. A read whose first upstream is the slow one is asked of the other after the hedge
 * delay and answered from there; a write is never sent twice; each hedge is charged to the caller, and one
 * the caller's limit refuses is not sent. The pool is driven directly where the order of picks must be
 * known (nothing else calls it), and the service end to end for the caller's rate limit.
 */
import assert from 'node:assert/strict';
import { keccak256 } from 'ethers';
import { AnvilProcess, TcpRelay, readMetrics } from '../support/upstreams.js';
import { startTestService, type TestService } from '../support/service.js';
import { postJson } from '../support/http.js';
import { DEV_ADDRESSES, DEV_KEYS, signedTransfer } from '../support/chain.js';
import { UpstreamPool } from '../../src/gateway/upstream/pool.js';
import { HttpUpstream } from '../../src/gateway/upstream/http.js';
import { metrics } from '../../src/gateway/metrics.js';
import { logger } from '../../src/shared/logger.js';
import { hedgeDelayMs, mayHedge, RecentLatencies } from '../../src/gateway/failsafe/hedge.js';
import { rpcErrors } from '../../src/gateway/errors.js';
import type { RpcOutcome } from '../../src/gateway/jsonrpc.js';

const SLOW_MS = 1_000;
const HEDGE = { quantile: 0.9, max: 1, minDelayMs: 50, maxDelayMs: 100 };
const HEALTH = { checkIntervalMs: 60_000, maxLagBlocks: 5, maxErrorRate: 0.5, errorWindowMs: 30_000, minSamples: 10, retryBehindErrors: true };

async function timed(run: () => Promise<RpcOutcome>): Promise<{ outcome: RpcOutcome; ms: number }> {
  const started = performance.now();
  const outcome = await run();
  return { outcome, ms: performance.now() - started };
}

async function hedges(network: string, outcome: string, method?: string): Promise<number> {
  const { values } = await metrics.upstreamHedges.get();
  return values
    .filter((v) => v.labels.network === network && v.labels.outcome === outcome && (method === undefined || v.labels.method === method))
    .reduce((sum, v) => sum + v.value, 0);
}

describe('hedged reads', function () {
  this.timeout(60_000);
  let anvil: AnvilProcess;
  let slow: TcpRelay;

  before(async () => {
    anvil = await AnvilProcess.start();
    slow = await TcpRelay.start(anvil.port, '127.0.0.1', { delayAnswers: () => SLOW_MS });
  });
  after(async () => {
    await slow?.kill();
    await anvil?.stop();
  });

  describe('rules', () => {
    it('hedges reads only, after the quantile clamped to the floor and ceiling', () => {
      assert.ok(mayHedge('eth_getBalance') && mayHedge('eth_call') && mayHedge('eth_getLogs'));
      for (const m of ['eth_sendRawTransaction', 'eth_submitWork', 'eth_newFilter', 'eth_getFilterChanges', 'anvil_mine']) assert.ok(!mayHedge(m), m);
      assert.equal(hedgeDelayMs(undefined, HEDGE), 50, 'the floor until latencies are known');
      assert.equal(hedgeDelayMs(70, HEDGE), 70);
      assert.equal(hedgeDelayMs(5, HEDGE), 50);
      assert.equal(hedgeDelayMs(5_000, HEDGE), 100);
      const recent = new RecentLatencies(0.9);
      for (let i = 1; i <= 19; i++) recent.record(i);
      assert.equal(recent.quantile(), undefined, 'fewer than 20 samples');
      recent.record(20);
      assert.equal(recent.quantile(), 18);
      for (let i = 0; i < 256; i++) recent.record(i % 2 === 0 ? 1 : 1_000);
      assert.equal(recent.quantile(), 1_000);
    });
  });

  describe('in the pool', () => {
    let pool: UpstreamPool;
    let network: string;
    let n = 0;

    beforeEach(() => {
      network = `hedge-${++n}`;
      // Configuration order fast, slow: the rotation's picks alternate, the fast one first.
      const members = [anvil.url, slow.url].map((url, i) => ({
        transport: new HttpUpstream({ name: `${network}/${i}`, network, url, timeoutMs: 10_000 }),
        url,
      }));
      pool = new UpstreamPool(members, { network, chainId: 1, health: HEALTH, hedge: HEDGE, logger });
    });
    afterEach(() => pool.close());

    const balance = { method: 'eth_getBalance', params: ['0x' + '33'.repeat(20), 'latest'] };

    it('answers a read the slow upstream got first from the other, once the delay passed', async () => {
      const expected = await anvil.rpc('eth_getBalance', balance.params);
      for (let i = 0; i < 4; i++) {
        const { outcome, ms } = await timed(() => pool.send(balance));
        assert.equal(outcome.result, expected);
        assert.ok(ms < SLOW_MS / 2, `call ${i} took ${ms} ms`);
      }
      assert.equal(await hedges(network, 'won'), 2, 'the two calls the slow upstream got first');
    });

    it('never hedges a write: eth_sendRawTransaction waits for the slow upstream', async () => {
      const nonce = Number(await anvil.rpc('eth_getTransactionCount', [DEV_ADDRESSES[2], 'latest']));
      const times: number[] = [];
      for (let i = 0; i < 2; i++) {
        const raw = await signedTransfer(DEV_KEYS[2], nonce + i);
        const { outcome, ms } = await timed(() => pool.send({ method: 'eth_sendRawTransaction', params: [raw] }));
        assert.equal(outcome.result, keccak256(raw), JSON.stringify(outcome));
        times.push(ms);
      }
      assert.ok(times[1] >= SLOW_MS * 0.9, `the second went to the slow upstream alone: ${times}`);
      assert.equal(await hedges(network, 'won') + (await hedges(network, 'lost')), 0);
      assert.equal(Number(await anvil.rpc('eth_getTransactionCount', [DEV_ADDRESSES[2], 'latest'])), nonce + 2);
    });

    it('charges each hedge to the caller, and sends none the caller cannot pay for', async () => {
      const charged: number[] = [];
      const pay = (cost: number) => (charged.push(cost), Promise.resolve());
      await pool.send(balance, pay); // fast first
      const hedged = await timed(() => pool.send(balance, pay)); // slow first: hedged
      assert.deepEqual(charged, [1], 'one hedge, one call charged');
      assert.ok(hedged.ms < SLOW_MS / 2);

      const spent = () => Promise.reject(rpcErrors.rateLimited('spent'));
      await pool.send(balance, spent); // fast first
      const refused = await timed(() => pool.send(balance, spent)); // slow first: no hedge
      assert.ok(refused.ms >= SLOW_MS * 0.9, `waited for the slow upstream: ${refused.ms} ms`);
      assert.equal(await hedges(network, 'limited'), 1);
      assert.equal(await hedges(network, 'won'), 1);
    });
  });

  describe('through the service', () => {
    let service: TestService;

    before(async () => {
      service = await startTestService({
        UPSTREAM_MAINNET: `${anvil.url},${slow.url}`,
        PORT_MAINNET: '0',
        COALESCE_READS: 'false',
        HEDGE_QUANTILE: '0.9',
        HEDGE_MIN_DELAY_MS: '50',
        HEDGE_MAX_DELAY_MS: '100',
        RATE_LIMIT_PER_IP: '5',
        RATE_LIMIT_WINDOW_SECONDS: '600',
      });
    });
    after(() => service?.stop());

    it("charges the hedge to the client's rate limit; one it refuses is not sent and leaves the answer alone", async () => {
      const url = `${service.networkUrls.mainnet}/`;
      const read = (id: number) => postJson(url, { jsonrpc: '2.0', id, method: 'eth_getBalance', params: ['0x' + '55'.repeat(20), 'latest'] });
      // The upstreams take turns, the fast one first: reads 1 and 3 go to it (1 call each), read 2 to the
      // slow one and is hedged (2 calls): 4 of 5 spent.
      for (const id of [1, 2, 3]) {
        const started = performance.now();
        const res = await read(id);
        assert.equal(res.status, 200, JSON.stringify(res.json));
        assert.equal(res.headers.get('retry-after'), null);
        assert.ok(performance.now() - started < SLOW_MS / 2, `read ${id} was not held by the slow upstream`);
      }
      // Read 4 goes to the slow one and spends the last call: its hedge is refused, so it waits.
      const started = performance.now();
      const fourth = await read(4);
      assert.equal(fourth.status, 200, JSON.stringify(fourth.json));
      assert.ok(performance.now() - started >= SLOW_MS * 0.9, 'no hedge was sent');
      assert.equal(fourth.headers.get('retry-after'), null, 'the refused hedge says nothing on the answer');
      const m = await readMetrics(service.url);
      assert.equal(m.value('ethgate_upstream_hedges_total', { network: 'mainnet', outcome: 'won' }), 1);
      assert.equal(m.value('ethgate_upstream_hedges_total', { network: 'mainnet', outcome: 'limited' }), 1);
      const fifth = await read(5);
      assert.equal(fifth.status, 429, JSON.stringify(fifth.json));
      assert.equal(fifth.json.error.code, -32005);
      assert.ok(fifth.headers.get('retry-after'), 'a refused read itself says when to come back');
    });
  });
});
