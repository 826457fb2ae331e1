import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.js';
import { AnvilProcess, readMetrics } from '../support/upstreams.js';
import { until } from '../support/wait.js';

/** Reads that reach an upstream every time (no cache, coalescing off): block number and balances. */
function read(i: number): string {
  const call =
    i % 2 === 0
      ? { method: 'eth_blockNumber', params: [] }
      : { method: 'eth_getBalance', params: [`0x${(i % 997).toString(16).padStart(40, '0')}`, 'latest'] };
  return JSON.stringify({ jsonrpc: '2.0', id: i, ...call });
}

describe('gateway failover: one of two upstreams killed under load', function () {
  this.timeout(120_000);
  let a: AnvilProcess;
  let b: AnvilProcess;
  let service: TestService;

  before(async () => {
    [a, b] = await Promise.all([AnvilProcess.start(), AnvilProcess.start()]);
    service = await startTestService({
      UPSTREAM_MAINNET: `${a.url},${b.url}`,
      PORT_MAINNET: '0',
      HEALTH_CHECK_INTERVAL_MS: '200',
      COALESCE_READS: 'false',
    });
  });
  after(async () => {
    await service?.stop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('answers all 2,500 reads while upstream 1 is SIGKILLed, then uses it again after it restarts', async () => {
    const url = service.networkUrls.mainnet;
    const pool = service.gateway.network('mainnet').pool;
    const calls = (m: Awaited<ReturnType<typeof readMetrics>>, upstream: string) =>
      m.value('ethgate_upstream_calls_total', { network: 'mainnet', upstream });
    const start = await readMetrics(service.url);

    const TOTAL = 2_500;
    const KILL_AT = 600;
    let next = 0;
    let killed: Promise<void> | undefined;
    let servedByBBeforeKill = 0;
    const failures: string[] = [];
    const worker = async () => {
      while (next < TOTAL) {
        const i = next++;
        if (i === KILL_AT) {
          servedByBBeforeKill = calls(await readMetrics(service.url), 'mainnet/1') - calls(start, 'mainnet/1');
          killed = b.kill();
        }
        try {
          const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: read(i) });
          const body = (await res.json()) as { id: number; result?: string; error?: unknown };
          if (res.status !== 200 || body.id !== i || typeof body.result !== 'string') {
            failures.push(`#${i}: ${res.status} ${JSON.stringify(body)}`);
          }
        } catch (err) {
          failures.push(`#${i}: ${(err as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    await killed;

    assert.deepEqual(failures, [], 'every client read succeeded, retried on the surviving upstream');
    assert.ok(servedByBBeforeKill > 100, `upstream 1 shared the load before the kill (${servedByBBeforeKill} calls)`);
    const afterLoad = await readMetrics(service.url);
    // Up to 16 reads were on their way to upstream 1 when it was killed; the rest went to upstream 0.
    assert.ok(calls(afterLoad, 'mainnet/0') - calls(start, 'mainnet/0') >= TOTAL - servedByBBeforeKill - 16);
    const status = pool.status();
    assert.equal(status[0].healthy, true);
    assert.equal(status[1].healthy, false, 'the killed upstream is out of rotation');
    assert.match(status[1].reason ?? '', /unreachable|failed its health check/);
    assert.equal(afterLoad.value('ethgate_upstream_healthy', { upstream: 'mainnet/1', role: 'primary' }), 0);

    // Same port, new process: the health check puts it back and it takes calls again.
    await b.launch();
    await until(() => pool.status()[1].healthy, 'upstream 1 back in rotation', 15_000);
    const back = await readMetrics(service.url);
    assert.equal(back.value('ethgate_upstream_healthy', { upstream: 'mainnet/1', role: 'primary' }), 1);
    for (let i = 0; i < 20; i++) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: read(i) });
      assert.equal(res.status, 200);
    }
    const end = await readMetrics(service.url);
    assert.ok(calls(end, 'mainnet/1') - calls(back, 'mainnet/1') >= 5, 'the restarted upstream serves again');
    assert.ok(
      end.value('ethgate_upstream_state_changes_total', { upstream: 'mainnet/1', to: 'in' }) >=
        start.value('ethgate_upstream_state_changes_total', { upstream: 'mainnet/1', to: 'in' }) + 1,
    );
  });
});
