/**
 * Durability: the service (`node dist/src/wiring/main.js`, a child in its own process group) is killed with
 * kill -9 in the middle of a burst of 600 concurrent order POSTs, then started again on the same store
 * (SQLite under DATA_DIR, or a PostgreSQL schema). After the restart:
 * - every order that got its 201 is there, with the fields it was posted with;
 * - nothing that was never posted is there, and no order is there twice;
 * - the log is whole: positions 1..head without gaps, one OrderCreated per order stream, and every read
 *   model at the head;
 * - `npm run replay` computes the digests GET /api/v1/projections shows.
 * Orders whose request was in flight at the kill may or may not be there: the commit can precede the
 * response that the kill lost. If there, they are whole.
 *
 * The kill also takes the service's embedded anvil (it dies with its parent), so the service restarts on
 * a fresh chain, where it deploys the same contracts at the same addresses: the EIP-712 domain, and with
 * it every order UID, is unchanged, but the traders' balances are gone, hence includeInsufficientBalance.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { HDNodeWallet, JsonRpcProvider, MaxUint256, Wallet, parseUnits } from 'ethers';
import { Pool } from 'undici';
import { freePort } from '../../src/devchain/anvil.js';
import { signOrderNative, type SignedOrderCreation } from '../support/orders.js';
import { TOKENS } from '../support/orderbook.js';
import { mined, testToken } from '../support/solver.js';
import { serviceEnv, spawnService, type ServiceProcess } from '../support/process.js';
import { databaseUrl, dropSchema } from '../support/postgres.js';
import { replayCli } from '../support/replay.js';

const { TKA, TKB } = TOKENS;
const MNEMONIC = 'test test test test test test test test test test test junk';
/** anvil's dev accounts #3..#6: ether on every fresh dev chain, not used by the service itself. */
const TRADER_KEYS = [3, 4, 5, 6].map((i) => HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`).privateKey);
const POSTED = 600;
const HELD_BACK = 50;
/** The kill comes once this many 201s arrived. */
const KILL_AFTER = 100;

type Outcome = { kind: 'created' } | { kind: 'refused'; status: number; body: string } | { kind: 'lost'; error: string };

/** Mints and approves TKA for each trader on the service's chain, through the service's own gateway. */
async function fundTraders(networkUrl: string, vaultRelayer: string): Promise<void> {
  const provider = new JsonRpcProvider(networkUrl, 1, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 50 });
  try {
    await Promise.all(
      TRADER_KEYS.map(async (key) => {
        const trader = new Wallet(key, provider);
        await mined(testToken(TKA, trader).mint(trader.address, parseUnits('1000000', 18)));
        await mined(testToken(TKA, trader).approve(vaultRelayer, MaxUint256));
      }),
    );
  } finally {
    provider.destroy();
  }
}

async function getJson(url: string): Promise<{ status: number; json: any }> {
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** Every event of the log, through GET /api/v1/events. */
async function wholeLog(api: string): Promise<{ position: number; streamId: string; streamVersion: number; type: string; data: any }[]> {
  const events = [];
  for (let after = 0; ; ) {
    const { json: page } = await getJson(`${api}/events?after=${after}&limit=1000`);
    if (page.length === 0) return events;
    events.push(...page);
    after = page[page.length - 1].position;
  }
}

/** The order as the API must show it for `signed`: the posted fields (lowercase) with its uid and owner. */
function assertSameOrder(shown: Record<string, unknown>, signed: SignedOrderCreation): void {
  for (const [key, value] of Object.entries(signed.body)) {
    assert.deepEqual(shown[key], typeof value === 'string' ? value.toLowerCase() : value, `${signed.uid} ${key}`);
  }
  assert.equal(shown.uid, signed.uid);
  assert.equal(shown.owner, signed.owner);
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`order book durability across kill -9 (${engine})`, function () {
    this.timeout(180_000);
    let env: Record<string, string>;
    let service: ServiceProcess | undefined;
    let schema: string | undefined;

    before(async function () {
      if (engine === 'postgres' && !databaseUrl) return this.skip();
      schema = engine === 'postgres' ? `ob_dur_${randomBytes(5).toString('hex')}` : undefined;
      env = await serviceEnv({
        PORT_MAINNET: String(await freePort()),
        MIN_VALID_TO_SECONDS: '5',
        ...(schema ? { DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema } : {}),
      });
    });

    after(async () => {
      await service?.kill9();
      if (env) rmSync(env.DATA_DIR, { recursive: true, force: true });
      await dropSchema(schema);
    });

    it(`keeps every order that got 201 from a burst of ${POSTED} killed mid-way, nothing else, and replays to the same digests`, async () => {
      service = await spawnService(env);
      const networkUrl = `http://127.0.0.1:${env.PORT_MAINNET}`;
      const domain = (await getJson(`${service.api}/domain`)).json;
      const relayer: string = domain.vaultRelayer;
      assert.ok(relayer, 'the domain names the vault relayer');
      await fundTraders(networkUrl, relayer);

      // Pre-signed distinct orders, spread over the traders; the last HELD_BACK are never posted.
      const validTo = Math.floor(Date.now() / 1000) + 3600;
      const orders = Array.from({ length: POSTED + HELD_BACK }, (_, i) =>
        signOrderNative(TRADER_KEYS[i % TRADER_KEYS.length], domain.domainSeparator, {
          sellToken: TKA,
          buyToken: TKB,
          sellAmount: parseUnits('1', 18) + BigInt(i),
          buyAmount: 1000n + BigInt(i),
          validTo,
        }),
      );
      const posted = orders.slice(0, POSTED);
      const heldBack = orders.slice(POSTED);

      const pool = new Pool(service.url, { connections: 200, pipelining: 1 });
      const outcomes = new Map<string, Outcome>();
      let created = 0;
      let killing: Promise<void> | undefined;
      const victim = service;
      await Promise.all(
        posted.map(async (signed) => {
          try {
            const res = await pool.request({
              path: '/api/v1/orders',
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(signed.body),
            });
            const text = await res.body.text();
            if (res.statusCode === 201 && JSON.parse(text) === signed.uid) {
              outcomes.set(signed.uid, { kind: 'created' });
              if (++created === KILL_AFTER) killing = victim.kill9();
            } else {
              outcomes.set(signed.uid, { kind: 'refused', status: res.statusCode, body: text });
            }
          } catch (err) {
            outcomes.set(signed.uid, { kind: 'lost', error: (err as Error).message });
          }
        }),
      );
      await killing;
      await pool.destroy().catch(() => undefined);
      const byKind = (kind: Outcome['kind']) => posted.filter((o) => outcomes.get(o.uid)!.kind === kind);
      const refused = byKind('refused');
      assert.deepEqual(refused.map((o) => outcomes.get(o.uid)), [], 'no order was refused');
      const acknowledged = byKind('created');
      const inFlight = byKind('lost');
      assert.ok(acknowledged.length >= KILL_AFTER, `${acknowledged.length} orders got 201`);
      assert.ok(inFlight.length > 0, 'the kill came mid-burst: some requests never got an answer');

      service = await spawnService(env);
      const { api } = service;

      for (const signed of acknowledged) {
        const { status, json } = await getJson(`${api}/orders/${signed.uid}`);
        assert.equal(status, 200, `acknowledged order ${signed.uid} is there after the restart`);
        assertSameOrder(json, signed);
      }
      for (const signed of heldBack) {
        assert.equal((await getJson(`${api}/orders/${signed.uid}`)).status, 404, 'an order never posted is not there');
      }
      const survivors = new Set(acknowledged.map((o) => o.uid));
      for (const signed of inFlight) {
        const { status, json } = await getJson(`${api}/orders/${signed.uid}`);
        assert.ok(status === 200 || status === 404, `in-flight order: ${status}`);
        if (status === 200) {
          assertSameOrder(json, signed);
          survivors.add(signed.uid);
        }
      }

      const listed = (await getJson(`${api}/orders?includeInsufficientBalance=true&includeInvalidated=true&includeFullyExecuted=true&minValidTo=0`)).json;
      const listedUids = listed.map((o: { uid: string }) => o.uid);
      assert.equal(new Set(listedUids).size, listedUids.length, 'no order listed twice');
      assert.deepEqual([...listedUids].sort(), [...survivors].sort());

      const log = await wholeLog(api);
      assert.deepEqual(log.map((e) => e.position), Array.from({ length: log.length }, (_, i) => i + 1), 'no gap in the log');
      assert.ok(log.every((e) => e.type === 'OrderCreated' && e.streamVersion === 1 && e.streamId === `order-${e.data.uid}`));
      assert.deepEqual(log.map((e) => e.data.uid).sort(), [...survivors].sort(), 'one OrderCreated per order, for exactly those');

      const live = (await getJson(`${api}/projections`)).json;
      assert.equal(live.head, log.length);
      for (const [name, p] of Object.entries<{ position: number }>(live.projections)) assert.equal(p.position, live.head, name);
      assert.equal(live.projections.orders.documents, survivors.size);
      const replayed = await replayCli(schema ? { DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema, DATA_DIR: env.DATA_DIR } : { DATA_DIR: env.DATA_DIR });
      assert.equal(replayed.position, live.head);
      for (const name of Object.keys(live.projections)) {
        const { version: _version, ...digest } = live.projections[name];
        assert.deepEqual(replayed.digests[name], digest, `replayed ${name}`);
      }

      // The restarted service takes orders again, and still knows the ones it had.
      await fundTraders(networkUrl, relayer);
      const again = await fetch(`${api}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(acknowledged[0].body) });
      assert.equal(again.status, 400);
      assert.equal(((await again.json()) as { errorType: string }).errorType, 'DuplicatedOrder');
      const fresh = await fetch(`${api}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(heldBack[0].body) });
      assert.equal(fresh.status, 201, await fresh.clone().text());
      assert.equal(await fresh.json(), heldBack[0].uid);
      await service.stop();
      service = undefined;
    });
  });
}
