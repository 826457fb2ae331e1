/** The pure rules behind the head tracker, subscriptions, consistent head, getLogs splitting and /status. */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RecentChain, toTrackedBlock, type HeadChange, type TrackedBlock } from '../../src/gateway/head/chain.js';
import { matchesLog, parseLogsFilter } from '../../src/gateway/head/logs-filter.js';
import { atLeast, nullMeansBehind, requestedBlock, withDefaultBlock } from '../../src/gateway/upstream/consistency.js';
import { MAX_LOGS_PARTS, splitLogsRange } from '../../src/gateway/limits.js';
import { LatencyWindow, redactUrl } from '../../src/gateway/upstream/latency.js';
import { RpcError } from '../../src/gateway/errors.js';

const hash = (label: string) => '0x' + Buffer.from(label).toString('hex').padEnd(64, '0');

/** Blocks `from`..`to` of branch `fork`, the first one's parent being `parent` (else the same branch). */
function run(from: number, to: number, fork: string, parent?: string): TrackedBlock[] {
  const blocks: TrackedBlock[] = [];
  for (let n = from; n <= to; n++) {
    const parentHash = n === from && parent !== undefined ? parent : hash(`${fork}/${n - 1}`);
    blocks.push({ number: n, hash: hash(`${fork}/${n}`), parentHash, header: { number: '0x' + n.toString(16) } });
  }
  return blocks;
}

describe('head rules', () => {
  describe('RecentChain', () => {
    it('adds linked blocks, ignores known ones, and replaces a fork with removed blocks newest first', () => {
      const chain = new RecentChain();
      assert.deepEqual(chain.adopt(run(0, 3, 'a')).added.map((b) => b.number), [0, 1, 2, 3]);
      assert.deepEqual(chain.adopt(run(3, 3, 'a')), { removed: [], added: [] });
      const fork = run(2, 5, 'b', hash('a/1'));
      assert.ok(chain.links(fork[0]));
      assert.ok(!chain.links(fork[1]), 'b/3 does not link to a/2');
      const change = chain.adopt(fork);
      assert.deepEqual(change.removed.map((b) => b.hash), [hash('a/3'), hash('a/2')]);
      assert.deepEqual(change.added.map((b) => b.hash), fork.map((b) => b.hash));
      assert.equal(chain.head?.hash, hash('b/5'));
      assert.ok(chain.has(hash('a/1')) && !chain.has(hash('a/2')));
    });

    it('becomes shorter when a node reports an older block of its chain as its head', () => {
      const chain = new RecentChain();
      chain.adopt(run(0, 5, 'a'));
      const change = chain.adopt(run(3, 3, 'a'));
      assert.deepEqual(change.removed.map((b) => b.number), [5, 4]);
      assert.equal(chain.head?.number, 3);
    });

    it('keeps `keep` blocks, and anything older links (it cannot be checked)', () => {
      const chain = new RecentChain(4);
      chain.adopt(run(0, 9, 'a'));
      assert.equal(chain.at(5), undefined);
      assert.equal(chain.lowest, 6);
      assert.ok(chain.links(run(6, 6, 'zz')[0]), 'its parent is older than what is kept');
    });

    it('restarts at a block, forgetting (not removing) what it had', () => {
      const chain = new RecentChain();
      chain.adopt(run(0, 3, 'a'));
      const far = run(500, 500, 'c')[0];
      assert.deepEqual(chain.restart(far), { removed: [], added: [far] });
      assert.equal(chain.at(3), undefined);
    });

    it('a consumer replaying its changes holds the canonical chain, whatever the forks (property)', () => {
      const step = fc.record({ back: fc.nat(5), grow: fc.integer({ min: 1, max: 5 }) });
      fc.assert(
        fc.property(fc.array(step, { minLength: 1, maxLength: 25 }), (steps) => {
          const chain = new RecentChain(64);
          let model = run(0, 2, 'f0');
          const view: TrackedBlock[] = [];
          const apply = ({ removed, added }: HeadChange) => {
            for (const gone of removed) assert.equal(view.pop()?.hash, gone.hash, 'removed newest first');
            view.push(...added);
          };
          apply(chain.adopt(model));
          steps.forEach(({ back, grow }, i) => {
            const base = model[Math.max(0, model.length - 1 - back)];
            const next = run(base.number + 1, base.number + grow, `f${i + 1}`, base.hash);
            model = [...model.slice(0, base.number + 1), ...next];
            apply(chain.adopt(next));
          });
          assert.deepEqual(view.map((b) => b.hash), model.map((b) => b.hash));
          assert.equal(chain.head?.hash, model.at(-1)!.hash);
        }),
      );
    });

    it('reads blocks and newHeads payloads; refuses what is not one', () => {
      const tracked = toTrackedBlock({ number: '0x10', hash: '0xAB', parentHash: '0xCD', miner: '0x0' });
      assert.deepEqual(tracked && { n: tracked.number, h: tracked.hash, p: tracked.parentHash }, { n: 16, h: '0xab', p: '0xcd' });
      assert.equal(toTrackedBlock(null), undefined);
      assert.equal(toTrackedBlock({ number: '0x1', hash: '0x1' }), undefined);
    });
  });

  describe('logs filter', () => {
    const A = '0x' + '11'.repeat(20);
    const B = '0x' + '22'.repeat(20);
    const T1 = '0x' + 'aa'.repeat(32);
    const T2 = '0x' + 'bb'.repeat(32);
    const log = (address: string, topics: string[]) => ({ address, topics });

    it('matches as geth does: any of the addresses, per position null, a hash or any of several', () => {
      assert.ok(matchesLog(parseLogsFilter(undefined), log(A, [])));
      assert.ok(matchesLog(parseLogsFilter({ address: '0x' + 'AA'.repeat(20) }), log('0x' + 'aa'.repeat(20), [])));
      assert.ok(matchesLog(parseLogsFilter({ address: [A, B] }), log(B, [T1])));
      assert.ok(!matchesLog(parseLogsFilter({ address: A }), log(B, [])));
      assert.ok(matchesLog(parseLogsFilter({ topics: [null, T2] }), log(A, [T1, T2])));
      assert.ok(matchesLog(parseLogsFilter({ topics: [[T1, T2]] }), log(A, [T2])));
      assert.ok(!matchesLog(parseLogsFilter({ topics: [T1, T2] }), log(A, [T1])), 'a missing position does not match');
      assert.ok(matchesLog(parseLogsFilter({ fromBlock: '0x1', toBlock: 'latest', address: A }), log(A, [])), 'a range is ignored');
    });

    it('refuses what is not a filter with -32602', () => {
      for (const bad of ['x', [A], { address: 'nope' }, { topics: 'x' }, { topics: [1] }, { blockHash: '0x1' }, { topics: [null, null, null, null, null] }]) {
        assert.throws(() => parseLogsFilter(bad), (err: unknown) => err instanceof RpcError && err.code === -32602, JSON.stringify(bad));
      }
    });
  });

  describe('consistent head', () => {
    it('knows the block a call names by number', () => {
      assert.equal(requestedBlock('eth_getBlockByNumber', ['0x10', false]), 16);
      assert.equal(requestedBlock('eth_getBalance', ['0x' + '11'.repeat(20), '0xa']), 10);
      assert.equal(requestedBlock('eth_call', [{}, { blockNumber: '0x5' }]), 5);
      assert.equal(requestedBlock('eth_getBlockByNumber', ['latest', false]), undefined);
      assert.equal(requestedBlock('eth_getBlockByHash', ['0x10', false]), undefined);
    });

    it('reads an omitted block as latest: written in, never a number to route or cache by', () => {
      const A = '0x' + '11'.repeat(20);
      assert.deepEqual(withDefaultBlock({ method: 'eth_getBalance', params: [A] }).params, [A, 'latest']);
      assert.deepEqual(withDefaultBlock({ method: 'eth_getStorageAt', params: [A, '0x0'] }).params, [A, '0x0', 'latest']);
      assert.deepEqual(withDefaultBlock({ method: 'eth_getProof', params: [A, []] }).params, [A, [], 'latest']);
      assert.deepEqual(withDefaultBlock({ method: 'eth_getStorageValues', params: [{}] }).params, [{}, 'latest']);
      const given = { method: 'eth_getCode', params: [A, '0x5'] };
      assert.equal(withDefaultBlock(given), given, 'a block given is left as it is');
      const other = { method: 'eth_call', params: [{}] };
      assert.equal(withDefaultBlock(other), other, 'only where the specification says the default is latest');
      assert.equal(requestedBlock('eth_getBalance', [A]), undefined);
      assert.equal(requestedBlock('eth_getStorageAt', [A, '0x0']), undefined);
    });

    it('asks elsewhere after a null only for a block at or below the head', () => {
      assert.ok(nullMeansBehind('eth_getBlockByNumber', ['0x10', false], 16));
      assert.ok(!nullMeansBehind('eth_getBlockByNumber', ['0x11', false], 16));
      assert.ok(!nullMeansBehind('eth_getBlockByNumber', ['0x10', false], undefined));
      assert.ok(!nullMeansBehind('eth_getTransactionReceipt', ['0x10'], 100), 'a missing receipt is an ordinary answer');
    });

    it('puts a floor under eth_blockNumber', () => {
      assert.deepEqual(atLeast({ result: '0x5' }, 9), { result: '0x9' });
      assert.deepEqual(atLeast({ result: '0xa' }, 9), { result: '0xa' });
      assert.deepEqual(atLeast({ result: '0x5' }, undefined), { result: '0x5' });
      const error = { error: { code: -32000, message: 'x' } };
      assert.equal(atLeast(error, 9), error);
    });
  });

  describe('eth_getLogs splitting', () => {
    const chain = { head: 10_000, finalized: undefined };

    it('covers the range exactly, in order, in parts within the limit (property)', () => {
      const span = fc.integer({ min: 1, max: 3_000 });
      fc.assert(
        fc.property(fc.nat(20_000), fc.nat(20_000), span, span, (a, b, limit, part) => {
          const [from, to] = a <= b ? [a, b] : [b, a];
          const address = '0x' + '11'.repeat(20);
          const params = [{ fromBlock: '0x' + from.toString(16), toBlock: '0x' + to.toString(16), address }];
          const parts = splitLogsRange(params, limit, part, chain);
          if (to - from <= limit || Math.ceil((to - from + 1) / Math.min(part, limit + 1)) > MAX_LOGS_PARTS) {
            assert.equal(parts, undefined);
            return;
          }
          assert.ok(parts);
          let next = from;
          for (const [filter] of parts as [{ fromBlock: string; toBlock: string; address: string }][]) {
            const f = Number(filter.fromBlock);
            const t = Number(filter.toBlock);
            assert.equal(f, next);
            assert.ok(t >= f && t - f <= limit && t - f < part);
            assert.equal(filter.address, address);
            next = t + 1;
          }
          assert.equal(next, to + 1);
        }),
      );
    });

    it('does not split when off, for a blockHash, or within range; tags resolve against the head', () => {
      const wide = [{ fromBlock: '0x0', toBlock: 'latest' }];
      assert.equal(splitLogsRange(wide, 500, 0, chain), undefined);
      assert.equal(splitLogsRange([{ blockHash: '0x' + '00'.repeat(32) }], 500, 100, chain), undefined);
      assert.equal(splitLogsRange([{ fromBlock: '0x0', toBlock: '0x10' }], 500, 100, chain), undefined);
      // 0..10,000 is 10,001 blocks: 20 parts of at most 501 blocks (a span of 500, the limit).
      assert.equal(splitLogsRange(wide, 500, 1_000, chain)?.length, 20);
    });
  });

  describe('/status figures', () => {
    it('never shows credentials or a key in the path', () => {
      assert.equal(redactUrl('https://user:pw@node.example:8545/v3/KEY?x=1'), 'https://node.example:8545/…');
      assert.equal(redactUrl('ws://127.0.0.1:8546'), 'ws://127.0.0.1:8546');
      assert.equal(redactUrl('http://127.0.0.1:8545/'), 'http://127.0.0.1:8545');
    });

    it('gives nearest-rank quantiles of the recent samples, null without any', () => {
      const w = new LatencyWindow(100);
      assert.deepEqual(w.quantiles(), { p50: null, p99: null });
      for (let i = 1; i <= 200; i++) w.record(i);
      // The ring holds the last 100 samples: 101..200.
      assert.deepEqual(w.quantiles(), { p50: 150, p99: 199 });
    });
  });
});
