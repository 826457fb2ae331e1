/**
 * Indexer leadership with PostgreSQL: two service processes on one database schema and one external
 * anvil. Exactly one indexes (a session advisory lock); the other serves the API from the same read models
 * and records nothing twice. When the leader's lock session ends (a lost connection) one instance leads
 * again; when the leader is killed with kill -9 the other takes over and indexes new settlements. Runs
 * when DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import type { Trade } from '../../../src/generated/orderbook/trade.js';
import { bootstrapDevChain, type DevChain } from '../../../src/wiring/gpv2.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { assertEachTradeOnce, externalChainEnv, indexedTo, Market } from '../../support/external-market.js';
import { http } from '../../support/http.js';
import { createTestSchema, databaseUrl, type TestSchema } from '../../support/postgres.js';
import { removeDataDir, startServiceProcess, type ServiceProcess } from '../../support/service-process.js';
import { until } from '../../support/wait.js';

interface IndexerHealth {
  leading: boolean;
  block: number | null;
}

async function indexerOf(service: ServiceProcess): Promise<IndexerHealth> {
  return (await http(`${service.url}/healthz`)).json.orderbook.indexer as IndexerHealth;
}

describe('order book on chain: one indexer leader on PostgreSQL', function () {
  this.timeout(240_000);
  let chain: TestChain;
  let dev: DevChain;
  let schema: TestSchema;
  const services: ServiceProcess[] = [];

  before(async function () {
    if (!databaseUrl) this.skip();
    schema = await createTestSchema('ob_leader');
    chain = await startTestChain({ chainId: 1 });
    dev = await bootstrapDevChain(chain.rpc);
  });
  after(async () => {
    for (const s of services) {
      await s.kill9();
      removeDataDir(s.dataDir);
    }
    await chain?.stop();
    await schema?.drop();
  });
  afterEach(function () {
    if (this.currentTest?.state !== 'failed') return;
    for (const s of services) console.log(`--- ${s.url}\n${s.output.join('').slice(-10_000)}`);
  });

  /** The backend pid holding the indexer lock, if any. */
  async function lockHolders(key: string): Promise<number | undefined> {
    const res = await schema.pool.query<{ pid: number }>(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
         AND objid::bigint = (hashtext($1)::bigint & 4294967295)`,
      [key],
    );
    return res.rows[0]?.pid;
  }

  it('indexes on exactly one instance, again after the leader loses its lock session, and on the other once the leader is killed', async () => {
    const env = { ...externalChainEnv(chain, dev), DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema.schema };
    services.push(await startServiceProcess({ env }));
    services.push(await startServiceProcess({ env }));
    await until(async () => (await Promise.all(services.map(indexerOf))).some((i) => i.leading), 'a leader', 30_000);
    const roles = await Promise.all(services.map(indexerOf));
    assert.equal(roles.filter((r) => r.leading).length, 1, `exactly one leads: ${JSON.stringify(roles)}`);
    const leader = services[roles.findIndex((r) => r.leading)];
    const standby = services[roles.findIndex((r) => !r.leading)];
    assert.equal(roles.find((r) => !r.leading)!.block, null);

    // Orders through either instance, settlements indexed once.
    const market = new Market(chain, dev);
    const pairs = [await market.pair(leader.url), await market.pair(standby.url), await market.pair(standby.url), await market.pair(leader.url)];
    await market.settle(pairs[0]);
    const settledBlock = await market.settle(pairs[1]);
    await indexedTo(leader, settledBlock);
    for (const s of [leader, standby]) {
      await until(async () => ((await http(`${s.url}/api/v1/trades`)).json as Trade[]).length === 4, `4 trades on ${s.url}`, 30_000);
      await assertEachTradeOnce(s.url, market.settled);
    }
    assert.equal((await indexerOf(standby)).leading, false, 'the standby still does not index');

    // The leader's lock session ends while the process lives on (a lost connection): it stops indexing,
    // and exactly one instance (either) takes the lock again.
    const lockKey = `${schema.schema}:indexer:${dev.settlement}`;
    const holder = await lockHolders(lockKey);
    assert.ok(holder !== undefined, 'a session holds the indexer lock');
    await schema.pool.query('SELECT pg_terminate_backend($1)', [holder]);
    await until(
      async () => {
        const now = await lockHolders(lockKey);
        const leading = (await Promise.all(services.map(indexerOf))).filter((i) => i.leading).length;
        return now !== undefined && now !== holder && leading === 1;
      },
      'one instance leading again with a new lock session',
      30_000,
    );
    const afterLoss = await Promise.all(services.map(indexerOf));
    assert.equal(afterLoss.filter((r) => r.leading).length, 1, JSON.stringify(afterLoss));
    const second = services[afterLoss.findIndex((r) => r.leading)];
    const other = services[afterLoss.findIndex((r) => !r.leading)];
    const middle = await market.settle(pairs[2]);
    await indexedTo(second, middle);
    await until(async () => ((await http(`${other.url}/api/v1/trades`)).json as Trade[]).length === 6, '6 trades', 30_000);
    await assertEachTradeOnce(other.url, market.settled);

    // The leader dies; the other takes the lock and indexes what comes next.
    await second.kill9();
    const last = await market.settle(pairs[3]);
    await until(async () => (await indexerOf(other)).leading, 'the standby to take over', 60_000);
    await indexedTo(other, last);
    await until(async () => ((await http(`${other.url}/api/v1/trades`)).json as Trade[]).length === 8, '8 trades', 30_000);
    await assertEachTradeOnce(other.url, market.settled);
  });
});
