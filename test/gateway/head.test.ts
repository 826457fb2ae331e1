/**
 * The head tracker and the subscriptions it serves, against real anvil processes: several nodes of one
 * chain as TCP relays in front of one anvil, one of them killed mid-stream while blocks are mined every
 * ~300 ms; http-only upstreams (polled) as well as WebSocket ones (newHeads); reorganisations with
 * evm_snapshot/evm_revert (which anvil announces to nobody); and a WebSocket spy at the node to see that
 * every upstream subscription the gateway made was ended and answered true.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestService, type TestService } from '../support/service.js';
import { AnvilProcess, TcpRelay, readMetrics } from '../support/upstreams.js';
import { DEV_ADDRESSES, prepareChain, probeInterface } from '../support/chain.js';
import { WsClient } from '../support/ws.js';
import { WsSpy } from '../support/ws-spy.js';
import { HANG_GUARD_MS, until } from '../support/wait.js';

interface Mined {
  number: number;
  hash: string;
  at: number;
  /** The poke transaction of the block (one log), if it has one. */
  tx?: string;
}

/** A gateway WebSocket client whose notifications are kept with their arrival time. */
async function timedClient(service: TestService): Promise<{ client: WsClient; arrivals: { sub: string; result: any; at: number }[] }> {
  const client = await WsClient.connect(`${service.url.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`);
  const arrivals: { sub: string; result: any; at: number }[] = [];
  client.socket.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString());
    if (frame.method === 'eth_subscription') arrivals.push({ sub: frame.params.subscription, result: frame.params.result, at: Date.now() });
  });
  return { client, arrivals };
}

/** Mines `count` blocks ~300 ms apart, two of every three with one Probe log; `during` runs after block i. */
async function mineStream(anvil: AnvilProcess, probe: string, count: number, during?: (i: number) => Promise<void>): Promise<Mined[]> {
  const mined: Mined[] = [];
  for (let i = 0; i < count; i++) {
    // anvil may answer before its new block is `latest`: the block is read from the receipt, or waited for.
    const before = Number(await anvil.rpc('eth_blockNumber'));
    if (i % 3 === 2) {
      await anvil.rpc('evm_mine');
      await until(async () => Number(await anvil.rpc('eth_blockNumber')) > before, 'the mined block', HANG_GUARD_MS);
      const block = await anvil.rpc('eth_getBlockByNumber', [`0x${(before + 1).toString(16)}`, false]);
      mined.push({ number: before + 1, hash: block.hash, at: Date.now() });
    } else {
      const data = probeInterface().encodeFunctionData('poke', [BigInt(1000 + i)]);
      const tx = await anvil.rpc<string>('eth_sendTransaction', [{ from: DEV_ADDRESSES[0], to: probe, data }]);
      let receipt: any = null;
      await until(async () => (receipt = await anvil.rpc('eth_getTransactionReceipt', [tx])) !== null, 'the receipt', HANG_GUARD_MS);
      mined.push({ number: Number(receipt.blockNumber), hash: receipt.blockHash, at: Date.now(), tx });
    }
    await during?.(i);
    await sleep(300);
  }
  return mined;
}

/**
 * Every block once, in order, each the chain's own; every poke's log once. How soon after its block each
 * arrives is a figure of `npm run bench -- live` (live.head_ws.*, live.head_http.*), not asserted here.
 */
function checkDelivery(mined: Mined[], heads: { result: any; at: number }[], logs: { result: any; at: number }[], probe: string): void {
  const numbers = heads.map((h) => Number(h.result.number));
  for (let i = 1; i < numbers.length; i++) assert.equal(numbers[i], numbers[i - 1] + 1, `heads in order, once each: ${numbers.join(',')}`);
  for (const block of mined) {
    const head = heads.find((h) => Number(h.result.number) === block.number);
    assert.ok(head, `newHeads of block ${block.number}`);
    assert.equal(head.result.hash, block.hash, JSON.stringify({ block, heads: heads.map((h) => [Number(h.result.number), h.result.hash.slice(0, 10), h.at]), mined: mined.map((m) => [m.number, m.hash.slice(0, 10), m.at]) }));
  }
  const pokes = mined.filter((b) => b.tx);
  for (const block of pokes) {
    const found = logs.filter((l) => l.result.transactionHash === block.tx);
    assert.equal(found.length, 1, `the log of ${block.tx} once`);
    assert.equal(found[0].result.removed, false);
    assert.equal(found[0].result.address.toLowerCase(), probe);
    assert.equal(found[0].result.blockHash, block.hash, JSON.stringify({ log: found[0].result, block, mined }));
  }
  assert.equal(logs.length, pokes.length, 'no other log');
}

for (const transport of ['http', 'ws'] as const) {
  describe(`head tracker and subscriptions over ${transport} upstreams`, function () {
    this.timeout(90_000);
    let anvil: AnvilProcess;
    let relays: TcpRelay[];
    let service: TestService;
    let probe: string;

    beforeEach(async () => {
      anvil = await AnvilProcess.start();
      probe = (await prepareChain(anvil.url)).probe;
      relays = [await TcpRelay.start(anvil.port), await TcpRelay.start(anvil.port)];
      service = await startTestService({
        UPSTREAM_MAINNET: relays.map((r) => (transport === 'ws' ? r.wsUrl : r.url)).join(','),
        HEAD_POLL_INTERVAL_MS: '100',
        HEALTH_CHECK_INTERVAL_MS: '200',
        UPSTREAM_TIMEOUT_MS: '1000',
      });
    });
    afterEach(async () => {
      await service?.stop();
      for (const r of relays ?? []) await r.kill();
      await anvil?.stop();
    });

    it('delivers every block and every log exactly once, in order, while one of two nodes dies', async () => {
      const { client, arrivals } = await timedClient(service);
      try {
        const headsId = (await client.call('eth_subscribe', ['newHeads'])).result;
        const logsId = (await client.call('eth_subscribe', ['logs', { address: probe }])).result;
        const mined = await mineStream(anvil, probe, 21, async (i) => {
          if (i === 6) await relays[0].kill();
        });
        const last = mined.at(-1)!;
        await until(() => arrivals.some((a) => a.sub === headsId && Number(a.result.number) === last.number), 'the last head', HANG_GUARD_MS);
        await sleep(500); // anything late or doubled would show now
        const heads = arrivals.filter((a) => a.sub === headsId).filter((a) => Number(a.result.number) >= mined[0].number);
        const logs = arrivals.filter((a) => a.sub === logsId);
        checkDelivery(mined, heads, logs, probe);
        assert.equal(service.gateway.network('mainnet').head, last.number);
      } finally {
        await client.close();
      }
    });

    it('after a reorganisation: removed:true for every replaced log, then the new logs and the new chain\'s heads', async () => {
      const { client, arrivals } = await timedClient(service);
      try {
        const headsId = (await client.call('eth_subscribe', ['newHeads'])).result;
        const logsId = (await client.call('eth_subscribe', ['logs', { address: probe }])).result;
        const snapshot = await anvil.rpc('evm_snapshot');
        const old = await mineStream(anvil, probe, 3);
        await until(() => arrivals.filter((a) => a.sub === logsId).length === 2, 'the old chain\'s logs', HANG_GUARD_MS);
        await until(() => arrivals.some((a) => a.sub === headsId && a.result.hash === old[2].hash), 'the old head', HANG_GUARD_MS);

        // Back to the snapshot (no notification from anvil), then a longer chain with other logs.
        assert.equal(await anvil.rpc('evm_revert', [snapshot]), true);
        await anvil.rpc('evm_setNextBlockTimestamp', [Math.floor(Date.now() / 1000) + 100]);
        const replacing = await mineStream(anvil, probe, 4);
        const newTip = replacing.at(-1)!;
        await until(() => arrivals.some((a) => a.sub === headsId && a.result.hash === newTip.hash), 'the new head', HANG_GUARD_MS);
        await until(() => arrivals.filter((a) => a.sub === logsId).length === 2 + 2 + 3, 'removed and new logs', HANG_GUARD_MS);
        await sleep(300);

        const logs = arrivals.filter((a) => a.sub === logsId).map((a) => a.result);
        assert.equal(logs.length, 7, JSON.stringify(logs.map((l) => [l.blockNumber, l.removed])));
        const oldLogs = logs.slice(0, 2);
        const removed = logs.slice(2, 4);
        const added = logs.slice(4);
        assert.deepEqual(oldLogs.map((l) => l.transactionHash), old.filter((b) => b.tx).map((b) => b.tx));
        // The replaced logs come back removed, newest block first, then the replacing chain's logs in order.
        assert.deepEqual(removed.map((l) => l.removed), [true, true]);
        assert.deepEqual(removed.map((l) => l.transactionHash), oldLogs.map((l) => l.transactionHash).reverse());
        assert.deepEqual(removed.map((l) => ({ ...l, removed: false })), [...oldLogs].reverse());
        assert.deepEqual(added.map((l) => l.removed), [false, false, false]);
        assert.deepEqual(added.map((l) => l.transactionHash), replacing.filter((b) => b.tx).map((b) => b.tx));

        // The new chain's heads, each once, after the old ones.
        const heads = arrivals.filter((a) => a.sub === headsId).map((a) => a.result);
        const after = heads.slice(heads.findIndex((h) => h.hash === old[2].hash) + 1);
        assert.deepEqual(after.map((h) => h.hash), replacing.map((b) => b.hash));
      } finally {
        await client.close();
      }
    });

    it('after anvil_reorg (same height, no removed logs from anvil): removed:true for the replaced blocks\' logs, the new heads', async () => {
      const { client, arrivals } = await timedClient(service);
      try {
        const headsId = (await client.call('eth_subscribe', ['newHeads'])).result;
        const logsId = (await client.call('eth_subscribe', ['logs', { address: probe }])).result;
        const old = await mineStream(anvil, probe, 2); // two blocks, each with a log
        await until(() => arrivals.filter((a) => a.sub === logsId).length === 2, 'the logs', HANG_GUARD_MS);
        await until(() => arrivals.some((a) => a.sub === headsId && a.result.hash === old[1].hash), 'the head', HANG_GUARD_MS);
        const before = await readMetrics(service.url);
        assert.equal(await anvil.rpc('anvil_reorg', [2, []]), null);
        const replaced = await Promise.all(old.map((b) => anvil.rpc('eth_getBlockByNumber', [`0x${b.number.toString(16)}`, false])));
        assert.equal(replaced[1].number, `0x${old[1].number.toString(16)}`, 'the height is kept');
        await until(() => arrivals.some((a) => a.sub === headsId && a.result.hash === replaced[1].hash), 'the new head', HANG_GUARD_MS);
        await until(() => arrivals.filter((a) => a.sub === logsId).length === 4, 'the removed logs', HANG_GUARD_MS);
        await sleep(300);
        const logs = arrivals.filter((a) => a.sub === logsId).map((a) => a.result);
        assert.deepEqual(logs.slice(2).map((l) => [l.transactionHash, l.removed]), [[old[1].tx, true], [old[0].tx, true]]);
        const heads = arrivals.filter((a) => a.sub === headsId).map((a) => a.result.hash);
        assert.deepEqual(heads.slice(heads.indexOf(old[1].hash) + 1), replaced.map((b) => b.hash));
        const m = await readMetrics(service.url);
        const counted = (what: string) =>
          m.value('ethgate_reorgs_total', { network: 'mainnet', what }) - before.value('ethgate_reorgs_total', { network: 'mainnet', what });
        assert.equal(counted('reorgs'), 1);
        assert.equal(counted('blocks'), 2);
        assert.equal(m.value('ethgate_network_head_block', { network: 'mainnet' }), Number(replaced[1].number));
      } finally {
        await client.close();
      }
    });

    if (transport === 'http') {
      it('a chain that only becomes shorter (evm_revert, no new block): removed logs, and eth_blockNumber follows it down', async () => {
        const { client, arrivals } = await timedClient(service);
        try {
          const logsId = (await client.call('eth_subscribe', ['logs', { address: probe }])).result;
          const snapshot = await anvil.rpc('evm_snapshot');
          const base = Number(await anvil.rpc('eth_blockNumber'));
          const old = await mineStream(anvil, probe, 2);
          await until(() => arrivals.filter((a) => a.sub === logsId).length === 2, 'the logs', HANG_GUARD_MS);
          await until(() => service.gateway.network('mainnet').head === base + 2, 'the head', HANG_GUARD_MS);
          await anvil.rpc('evm_revert', [snapshot]);
          await until(() => arrivals.filter((a) => a.sub === logsId).length === 4, 'the removed logs', HANG_GUARD_MS);
          const removed = arrivals.filter((a) => a.sub === logsId).slice(2).map((a) => a.result);
          assert.deepEqual(removed.map((l) => [l.transactionHash, l.removed]), [[old[1].tx, true], [old[0].tx, true]]);
          assert.equal(service.gateway.network('mainnet').head, base);
          const res = await client.call('eth_blockNumber');
          assert.equal(Number(res.result), base, 'a real reorganisation lowers eth_blockNumber');
        } finally {
          await client.close();
        }
      });
    }

    if (transport === 'ws') {
      it('moves newPendingTransactions to the other WebSocket upstream when its node dies', async () => {
        const { client, arrivals } = await timedClient(service);
        const sent: string[] = [];
        const send = async () => {
          const value = '0x' + (sent.length + 1).toString(16);
          sent.push(await anvil.rpc('eth_sendTransaction', [{ from: DEV_ADDRESSES[1], to: DEV_ADDRESSES[2], value }]));
        };
        /** Sends transactions until one sent from now on is notified (one sent while it moves may be missed). */
        const flowing = async (what: string) => {
          const from = sent.length;
          const deadline = Date.now() + 10_000;
          while (!arrivals.some((a) => a.sub === id && sent.indexOf(a.result) >= from)) {
            assert.ok(Date.now() < deadline, `pending transactions flow again ${what}`);
            await send();
            await sleep(300);
          }
        };
        let id = '';
        try {
          id = (await client.call('eth_subscribe', ['newPendingTransactions'])).result;
          await anvil.rpc('evm_setAutomine', [false]);
          await flowing('at first');
          await relays[0].kill();
          await flowing('after one node died');
          await relays[0].revive();
          await relays[1].kill();
          await flowing('after the other node died');
          const hashes = arrivals.filter((a) => a.sub === id).map((a) => a.result);
          assert.equal(new Set(hashes).size, hashes.length, 'each once');
          assert.ok(hashes.every((h) => sent.includes(h)));
        } finally {
          await anvil.rpc('evm_setAutomine', [true]).catch(() => undefined);
          await client.close();
        }
      });
    }
  });
}

describe('upstream subscriptions seen at the node (WebSocket spy)', function () {
  this.timeout(60_000);
  let anvil: AnvilProcess;
  let spy: WsSpy;
  let service: TestService | undefined;

  before(async () => {
    anvil = await AnvilProcess.start();
    spy = await WsSpy.start(anvil.url.replace('http', 'ws'));
  });
  after(async () => {
    await service?.stop();
    await spy?.stop();
    await anvil?.stop();
  });

  it('ends each upstream subscription, answered true, when its last client leaves and when the service stops', async () => {
    service = await startTestService({ UPSTREAM_MAINNET: spy.url });
    const a = await WsClient.connect(`${service.url.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`);
    const b = await WsClient.connect(`${service.url.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`);
    const pendingA = (await a.call('eth_subscribe', ['newPendingTransactions'])).result;
    const pendingB = (await b.call('eth_subscribe', ['newPendingTransactions'])).result;
    assert.match((await a.call('eth_subscribe', ['newHeads'])).result, /^0x/);
    assert.match((await b.call('eth_subscribe', ['logs', {}])).result, /^0x/);
    // At the node: the tracker's one newHeads, and one shared newPendingTransactions; nothing per client.
    assert.deepEqual(spy.subscriptions().map((s) => s.kind).sort(), ['newHeads', 'newPendingTransactions']);

    assert.equal((await a.call('eth_unsubscribe', [pendingA])).result, true);
    await sleep(200);
    assert.equal(spy.subscriptions().find((s) => s.kind === 'newPendingTransactions')!.ended, false, 'b still uses it');
    assert.equal((await b.call('eth_unsubscribe', [pendingB])).result, true);
    await until(() => spy.subscriptions().find((s) => s.kind === 'newPendingTransactions')!.ended, 'eth_unsubscribe answered true', HANG_GUARD_MS);

    // A client that disconnects takes its relayed subscription along.
    const c = await WsClient.connect(`${service.url.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`);
    await c.call('eth_subscribe', ['newPendingTransactions']);
    c.socket.terminate();
    await until(() => spy.subscriptions().every((s) => s.kind === 'newHeads' || s.ended), 'the dropped client\'s subscription ended', HANG_GUARD_MS);

    await a.close();
    await b.close();
    await service.stop();
    service = undefined;
    const all = spy.subscriptions();
    assert.equal(all.length, 3);
    assert.ok(all.every((s) => s.ended), JSON.stringify(all));
  });
});
