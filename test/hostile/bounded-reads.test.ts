/**
 * Issue 29, item 3, against the service as a process: no read answers or scans more than its documented
 * bound however large the book. With more orders than a page holds, GET /api/v1/orders answers at most
 * 1000 (with every include flag) and a Link to the next page, and the pages together list each order once;
 * limits and offsets beyond their maxima are 400 in CoW's shape; GET /api/v1/projections answers the same
 * digests twice without moving anything; no read appends to the log and the process serves throughout.
 * Listings from many clients at once are built LISTING_CONCURRENCY at a time with LISTING_QUEUE waiting
 * (here 1 and 1); the others are refused 503 with Retry-After while every other route answers.
 * The orders are presigned ones (no balance to fund), signed in-process.
 */
import assert from 'node:assert/strict';
import { Wallet } from 'ethers';
import { http, postJson } from '../support/http.js';
import { TOKENS } from '../support/orderbook.js';
import { orderCreation, orderData } from '../support/orders.js';
import { assertOrderbookRefusal, assertServing, logHead } from '../support/refusals.js';
import { removeDataDir, startServiceProcess, type ServiceProcess } from '../support/service-process.js';

const ORDERS = 1_050;
const ADDRESS = '0x' + '5a'.repeat(20);

describe('hostile: reads that grow with the book (issue 29, item 3)', function () {
  this.timeout(300_000);
  let service: ServiceProcess;
  let api: string;
  const placed: string[] = [];

  before(async () => {
    service = await startServiceProcess({
      env: { NETWORKS: 'mainnet', ORDERBOOK: 'on', LOG_LEVEL: 'warn', LISTING_CONCURRENCY: '1', LISTING_QUEUE: '1' },
    });
    api = `${service.url}/api/v1`;
    const owners = Array.from({ length: 10 }, () => Wallet.createRandom().address);
    const validTo = Math.floor(Date.now() / 1000) + 3600;
    let next = 0;
    const client = async () => {
      for (let i = next++; i < ORDERS; i = next++) {
        const data = orderData({ sellToken: TOKENS.TKC, buyToken: TOKENS.TKB, sellAmount: BigInt(i + 1), buyAmount: 1n, validTo });
        const res = await postJson(`${api}/orders`, orderCreation(data, 'presign', owners[i % owners.length]));
        assert.equal(res.status, 201, res.text);
        placed.push(res.json);
      }
    };
    await Promise.all(Array.from({ length: 8 }, client));
  });
  after(async () => {
    await service?.stop();
    if (service) removeDataDir(service.dataDir);
  });

  it('answers at most 1000 orders a page, with a Link to the next; the pages list every order once', async () => {
    const head = await logHead(service.url);
    const query = 'includeFullyExecuted=true&includeInvalidated=true&includeInsufficientBalance=true&minValidTo=0';
    const first = await http(`${api}/orders?${query}`);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.length, 1000, 'the default page is the maximum');
    const seen: string[] = first.json.map((o: { uid: string }) => o.uid);
    let link = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    assert.ok(link, 'a Link to the next page');
    while (link) {
      const page = await http(`${service.url}${link}`);
      assert.equal(page.status, 200, page.text);
      assert.ok(page.json.length <= 1000);
      seen.push(...page.json.map((o: { uid: string }) => o.uid));
      link = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
    }
    assert.equal(seen.length, ORDERS);
    assert.deepEqual([...seen].sort(), [...placed].sort(), 'every order once');
    assert.equal(await logHead(service.url), head, 'reads append nothing');
  });

  it('builds listings one at a time with one waiting: the rest are 503 with Retry-After, other routes answer meanwhile', async () => {
    const query = 'includeFullyExecuted=true&includeInvalidated=true&includeInsufficientBalance=true&minValidTo=0';
    const listings = Array.from({ length: 8 }, (_, i) =>
      http(i % 2 === 0 ? `${api}/orders?${query}` : `${api}/events?after=0&limit=1000`),
    );
    const single = await http(`${api}/orders/${placed[0]}`);
    const answers = await Promise.all(listings);
    assert.equal(single.status, 200, 'a route outside the list class is not gated');
    const served = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    assert.ok(served.length >= 2, `the one building and the one waiting are served (${served.length} were)`);
    assert.ok(refused.length >= 1, 'eight at once exceed one building and one waiting');
    for (const res of refused) {
      assertOrderbookRefusal(res, 503, 'ServiceUnavailable', /LISTING_CONCURRENCY/);
      assert.equal(res.headers.get('retry-after'), '1');
    }
    for (const res of served) assert.equal(res.json.length, 1000);
    const again = await http(`${api}/events?after=0&limit=1000`);
    assert.equal(again.status, 200, 'the gate is free again once they are answered');
    assert.deepEqual(
      again.json.map((e: { position: number }) => e.position),
      Array.from({ length: 1000 }, (_, i) => i + 1),
      'a page read in several turns is the log in order, without gaps',
    );
    await assertServing(service.url, service.child);
  });

  it('refuses limits and offsets beyond their maxima with 400 in the documented shape', async () => {
    const head = await logHead(service.url);
    const refusals: [string, string][] = [
      ['/orders?limit=1001', 'InvalidOrderData'],
      ['/orders?limit=0', 'InvalidOrderData'],
      ['/orders?cursor=' + Buffer.from('forged').toString('base64url'), 'InvalidOrderData'],
      ['/events?limit=1001', 'InvalidOrderData'],
      ['/trades?limit=1001', 'InvalidOrderData'],
      ['/trades?offset=10001', 'InvalidOrderData'],
      [`/account/${ADDRESS}/orders?limit=1001`, 'InvalidLimit'],
      [`/account/${ADDRESS}/orders?offset=10001`, 'InvalidOrderData'],
      [`/../v2/trades?owner=${ADDRESS}&limit=1001`, 'InvalidLimit'],
      [`/../v2/trades?owner=${ADDRESS}&offset=10001`, 'InvalidOrderData'],
    ];
    for (const [path, errorType] of refusals) assertOrderbookRefusal(await http(`${api}${path}`), 400, errorType);
    assert.equal((await http(`${api}/events?limit=1000`)).json.length, 1000, 'the maximum itself is served');
    assert.equal((await http(`${api}/users/${ADDRESS}/total_surplus`)).status, 200);
    assert.equal(await logHead(service.url), head, 'nothing appended');
    await assertServing(service.url, service.child);
  });

  it('answers the projections from kept digests: the same twice, the log unmoved', async () => {
    const head = await logHead(service.url);
    const [one, two] = [await http(`${api}/projections`), await http(`${api}/projections`)];
    assert.equal(one.status, 200, one.text);
    assert.equal(one.json.head, head);
    assert.deepEqual(two.json, one.json);
    assert.equal(one.json.projections.orders.documents, ORDERS);
    assert.equal(one.json.projections.orders.position, head);
    assert.equal(await logHead(service.url), head, 'nothing appended');
    await assertServing(service.url, service.child);
  });
});
