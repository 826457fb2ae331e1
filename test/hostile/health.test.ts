/**
 * Health probes as an attacker (or a load balancer) uses them (issue 29, item 6), against the service as a
 * process: a flood of GET /healthz costs no upstream call (it reads the state the health checks hold),
 * /healthz stays 200 through a burst of 300 orders while the read models trail the log for a moment (on
 * PostgreSQL, where without READY_MAX_LAG_MS a third of the samples were 503), GET
 * /livez answers whatever the parts' state, and a part that is down is named without its reason (a
 * database URL's user and host stay in the logs and /status). Nothing is appended by the probes.
 */
import assert from 'node:assert/strict';
import { spawnService, serviceEnv, type ServiceProcess } from '../support/process.js';
import { http, postJson, type HttpResult } from '../support/http.js';
import { readMetrics } from '../support/upstreams.js';
import { until } from '../support/wait.js';
import { gasFundedWallet, startTestChain, type TestChain } from '../support/chain.js';
import { fundTrader } from '../support/solver.js';
import { signOrderNative } from '../support/orders.js';
import { createTestSchema, databaseUrl, type TestSchema } from '../support/postgres.js';
import { bootstrapDevChain } from '../../src/wiring/gpv2.js';
import { MaxUint256, parseEther, parseUnits } from 'ethers';

/** Orders posted in the burst, BURST at a time. */
const ORDERS = 300;
const BURST = 50;

const chainIdCalls = async (url: string) =>
  (await readMetrics(url)).value('ethgate_upstream_calls_total', { network: 'mainnet', method: 'eth_chainId' });

describe('hostile: health probes', function () {
  this.timeout(120_000);

  describe('on a serving instance', () => {
    let service: ServiceProcess;
    before(async () => {
      service = await spawnService(await serviceEnv({ READY_MAX_LAG_MS: '0' }));
    });
    after(() => service?.stop());

    it('answers a flood of /healthz from held state: no upstream call, nothing appended', async () => {
      const before = await http(`${service.url}/healthz`);
      assert.equal(before.status, 200, before.text);
      const calls = await chainIdCalls(service.url);
      const answers: HttpResult[] = [];
      for (let round = 0; round < 10; round++) answers.push(...(await Promise.all(Array.from({ length: 200 }, () => http(`${service.url}/healthz`)))));
      assert.deepEqual([...new Set(answers.map((a) => a.status))], [200]);
      assert.deepEqual(answers[0].json.networks, { mainnet: true });
      assert.equal(await chainIdCalls(service.url), calls, 'no eth_chainId sent for /healthz');
      assert.equal((await http(`${service.url}/healthz`)).json.orderbook.head, before.json.orderbook.head, 'nothing appended');
    });

    it('answers /livez 200 without consulting any part', async () => {
      const live = await http(`${service.url}/livez`);
      assert.equal(live.status, 200);
      assert.deepEqual(live.json, { live: true });
      assert.equal(live.headers.get('access-control-allow-origin'), null, 'the service\'s own route, not a CORS one');
    });
  });

  describe('through a burst of orders', () => {
    let chain: TestChain;
    let service: ServiceProcess;
    let bodies: string[];
    let schema: TestSchema | undefined;
    before(async () => {
      chain = await startTestChain({ chainId: 1 });
      const dev = await bootstrapDevChain(chain.rpc);
      const owners = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const owner = await gasFundedWallet(chain.provider, chain, parseEther('10'));
          await fundTrader(dev.tokens.TKA, owner, parseUnits('1000000', 18), dev.vaultRelayer, MaxUint256);
          return owner.privateKey;
        }),
      );
      const validTo = Math.floor(Date.now() / 1000) + 3600;
      bodies = Array.from({ length: ORDERS }, (_, i) =>
        JSON.stringify(
          signOrderNative(owners[i % owners.length], dev.domainSeparator, {
            sellToken: dev.tokens.TKA,
            buyToken: dev.tokens.TKB,
            sellAmount: parseUnits('1', 18) + BigInt(i),
            buyAmount: parseUnits('0.5', 18),
            validTo,
          }).body,
        ),
      );
      // On PostgreSQL when there is one (the log's head is then known from NOTIFY before the read models
      // have caught up, as on every instance of a shared book), else on SQLite.
      schema = databaseUrl ? await createTestSchema('health') : undefined;
      const store: Record<string, string> = schema ? { DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema.schema } : {};
      service = await spawnService(
        await serviceEnv({
          UPSTREAM_MAINNET: chain.anvil.httpUrl,
          SETTLEMENT_CONTRACT: dev.settlement,
          ...store,
        }),
      );
    });
    after(async () => {
      await service?.stop();
      await chain?.stop();
      await schema?.drop();
    });

    it('stays ready while the read models trail the log for a moment after each write', async () => {
      const head = (await http(`${service.url}/healthz`)).json.orderbook.head as number;
      const samples: number[] = [];
      let writing = true;
      const sampling = (async () => {
        while (writing) {
          samples.push((await http(`${service.url}/healthz`)).status);
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      const answers: HttpResult[] = [];
      for (let i = 0; i < bodies.length; i += BURST) {
        answers.push(...(await Promise.all(bodies.slice(i, i + BURST).map((body) => postJson(`${service.api}/orders`, body)))));
      }
      writing = false;
      await sampling;
      assert.deepEqual([...new Set(answers.map((a) => a.status))], [201], answers.find((a) => a.status !== 201)?.text);
      assert.ok(samples.length > 10, `${samples.length} samples`);
      assert.deepEqual([...new Set(samples)], [200], `/healthz during the burst: ${samples.join(' ')}`);
      await until(async () => (await http(`${service.url}/healthz`)).json.orderbook.projections >= head + ORDERS, 'the read models to catch up');
    });
  });

  describe('with the order book down', () => {
    let service: ServiceProcess;
    before(async () => {
      // A database that refuses connections, named with a user and host that must not be shown.
      service = await spawnService(await serviceEnv({ DATABASE_URL: 'postgres://secret_operator@127.0.0.1:9/ledger_db' }), { expectHealthy: false });
    });
    after(() => service?.stop());

    it('names the part that is down on /healthz, not why; /livez is 200; /status keeps the reason', async () => {
      await until(async () => (await http(`${service.url}/status`)).json.orderbook?.state === 'down', 'the order book down');
      const health = await http(`${service.url}/healthz`);
      assert.equal(health.status, 503);
      assert.deepEqual(health.json.down, ['orderbook']);
      assert.equal(health.json.networks.mainnet, true);
      assert.doesNotMatch(health.text, /secret_operator|ledger_db|127\.0\.0\.1|ECONNREFUSED/);
      assert.equal((await http(`${service.url}/livez`)).status, 200);
      assert.match(JSON.stringify((await http(`${service.url}/status`)).json.orderbook.reason), /ECONNREFUSED|connect/);
    });
  });
});
