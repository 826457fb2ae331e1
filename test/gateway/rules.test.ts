/** The gateway's pure rules: health bookkeeping, cache finality, retry and busy policy, eth_getLogs range. */
import assert from 'node:assert/strict';
import { ErrorWindow, tooManyErrors, excessLag, weightedPick, busyBackoff, MAX_BUSY_BACKOFF_MS } from '../../src/gateway/upstream/health.js';
import { cacheRule, isCacheable, mayHaveCached, safeBlockOf, cacheKey } from '../../src/gateway/cache/policy.js';
import { mayRetry, isBehindAnswer, isRead, isBusyAnswer, countsAgainstHealth } from '../../src/gateway/failsafe/policy.js';
import { checkLogsRange } from '../../src/gateway/limits.js';
import { UpstreamError, RpcError } from '../../src/gateway/errors.js';
import { response, serializeResponse } from '../../src/gateway/jsonrpc.js';

describe('gateway rules', () => {
  describe('error window', () => {
    it('counts failures over the last window only', () => {
      const window = new ErrorWindow(1_000, 10);
      for (let t = 0; t < 500; t += 50) window.record(t % 100 === 0, t);
      assert.deepEqual(window.counts(500), { failures: 5, total: 10 });
      // 1.2 s later the early slices have been passed over.
      window.record(false, 1_200);
      assert.deepEqual(window.counts(1_200), { failures: 2, total: 5 });
      assert.deepEqual(window.counts(5_000), { failures: 0, total: 0 });
    });

    it('judges the rate only with enough samples', () => {
      const rules = { maxLagBlocks: 5, maxErrorRate: 0.5, minSamples: 10 };
      assert.equal(tooManyErrors({ failures: 5, total: 5 }, rules), false);
      assert.equal(tooManyErrors({ failures: 6, total: 10 }, rules), true);
      assert.equal(tooManyErrors({ failures: 5, total: 10 }, rules), false);
      assert.equal(excessLag(94, 100, rules), 6);
      assert.equal(excessLag(95, 100, rules), undefined);
    });
  });

  it('weighted round robin picks in proportion to weight and spreads the picks', () => {
    const scores = [0, 0, 0];
    const picks = Array.from({ length: 12 }, () => weightedPick([3, 2, 1], scores));
    assert.deepEqual(picks, [0, 1, 0, 2, 1, 0, 0, 1, 0, 2, 1, 0]);
  });

  describe('cache finality', () => {
    const byNumber = cacheRule('eth_getBlockByNumber')!;
    const receipt = cacheRule('eth_getTransactionReceipt')!;
    it('takes the higher of head - depth and finalized as the safe block', () => {
      assert.equal(safeBlockOf(100, undefined, 10), 90);
      assert.equal(safeBlockOf(100, 95, 10), 95);
      assert.equal(safeBlockOf(100, 50, 10), 90);
      assert.equal(safeBlockOf(undefined, 50, 10), 50);
      assert.equal(safeBlockOf(undefined, undefined, 10), undefined);
    });
    it('caches blocks by number at or below the safe block, never tags or null', () => {
      assert.equal(mayHaveCached(byNumber, ['0x5a', false], 90), true);
      assert.equal(mayHaveCached(byNumber, ['0x5b', false], 90), false);
      assert.equal(mayHaveCached(byNumber, ['latest', false], 90), false);
      assert.equal(isCacheable(byNumber, 'eth_getBlockByNumber', ['0x5a', false], { number: '0x5a' }, 90), true);
      assert.equal(isCacheable(byNumber, 'eth_getBlockByNumber', ['0x5a', false], { number: '0x5b' }, 90), false);
      assert.equal(isCacheable(byNumber, 'eth_getBlockByNumber', ['0x5a', false], null, 90), false);
      assert.equal(isCacheable(byNumber, 'eth_getBlockByNumber', ['0x1', false], { number: '0x1' }, undefined), false);
    });
    it('caches by-hash answers only when the block they name is final', () => {
      assert.equal(isCacheable(receipt, 'eth_getTransactionReceipt', ['0xab'], { blockNumber: '0x5a' }, 90), true);
      assert.equal(isCacheable(receipt, 'eth_getTransactionReceipt', ['0xab'], { blockNumber: '0x5b' }, 90), false);
      assert.equal(isCacheable(receipt, 'eth_getTransactionByHash', ['0xab'], { blockNumber: null }, 90), false);
      const block = cacheRule('eth_getBlockByHash')!;
      assert.equal(isCacheable(block, 'eth_getBlockByHash', ['0xab', false], { number: '0x10' }, 90), true);
      const receipts = cacheRule('eth_getBlockReceipts')!;
      assert.equal(isCacheable(receipts, 'eth_getBlockReceipts', ['0xab'], [], 90), false);
    });
    it('caches state and logs only at explicit deep blocks', () => {
      const code = cacheRule('eth_getCode')!;
      assert.equal(mayHaveCached(code, ['0xabc', '0x10'], 90), true);
      assert.equal(mayHaveCached(code, ['0xabc', { blockNumber: '0x10' }], 90), true);
      assert.equal(mayHaveCached(code, ['0xabc', { blockHash: '0x12' }], 90), false);
      assert.equal(mayHaveCached(code, ['0xabc'], 90), false);
      // An omitted block is latest: never looked up, never stored, whatever the answer.
      assert.equal(isCacheable(code, 'eth_getCode', ['0xabc'], '0x60', 90), false);
      const slot = cacheRule('eth_getStorageAt')!;
      assert.equal(mayHaveCached(slot, ['0xabc', '0x0'], 90), false);
      assert.equal(isCacheable(slot, 'eth_getStorageAt', ['0xabc', '0x0'], '0x' + '00'.repeat(32), 90), false);
      assert.equal(mayHaveCached(code, ['0xabc', '0x' + 'ab'.repeat(32)], 90), false, 'a block hash names no number');
      const logs = cacheRule('eth_getLogs')!;
      assert.equal(mayHaveCached(logs, [{ fromBlock: '0x1', toBlock: '0x5a' }], 90), true);
      assert.equal(mayHaveCached(logs, [{ fromBlock: '0x1', toBlock: 'latest' }], 90), false);
      assert.equal(isCacheable(logs, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x5a' }], [], 90), true);
      assert.equal(cacheRule('eth_blockNumber'), undefined);
      assert.equal(cacheKey('eth_getCode', ['0xABC', '0x1']), cacheKey('eth_getCode', ['0xabc', '0x1']));
    });
  });

  describe('retry policy', () => {
    const unreachable = new UpstreamError('unreachable', 'u', 'is unreachable');
    const lost = new UpstreamError('connection-lost', 'u', 'dropped the connection');
    it('repeats reads on any transport fault, writes only when never delivered', () => {
      assert.equal(mayRetry('eth_call', lost), true);
      assert.equal(mayRetry('eth_sendRawTransaction', unreachable), true);
      assert.equal(mayRetry('eth_sendRawTransaction', lost), false);
      assert.equal(mayRetry('eth_newFilter', lost), false);
      assert.equal(mayRetry('some_custom_method', lost), false);
      assert.equal(isRead('eth_getFilterChanges'), false);
    });
    it('recognises "node is behind" answers of reads only', () => {
      assert.equal(isBehindAnswer('eth_call', { code: -32000, message: 'header not found' }), true);
      assert.equal(isBehindAnswer('eth_getBalance', { code: -32000, message: 'missing trie node abc (path )' }), true);
      assert.equal(isBehindAnswer('eth_call', { code: 3, message: 'execution reverted' }), false);
      assert.equal(isBehindAnswer('eth_sendRawTransaction', { code: -32000, message: 'header not found' }), false);
    });
    it('takes rate-limit answers as busy by their words, not by -32005 alone', () => {
      assert.equal(isBusyAnswer({ code: -32005, message: 'daily request count exceeded, request rate limited' }), true);
      assert.equal(isBusyAnswer({ code: 429, message: 'Too Many Requests' }), true);
      assert.equal(isBusyAnswer({ code: -32005, message: 'query returned more than 10000 results' }), false);
      assert.equal(isBusyAnswer({ code: -32000, message: 'execution reverted: limit exceeded too large' }), false);
      assert.equal(isBusyAnswer({ code: 3, message: 'execution reverted' }), false);
    });
    it('sends busy calls elsewhere, even writes; never oversized ones; neither counts against health', () => {
      const busy = new UpstreamError('busy', 'u', 'is busy (HTTP 429)', 429, 1000);
      const tooLarge = new UpstreamError('too-large', 'u', 'answered more than 1 bytes');
      assert.equal(mayRetry('eth_sendRawTransaction', busy), true);
      assert.equal(mayRetry('eth_getLogs', tooLarge), false);
      assert.equal(busy.status, 503);
      assert.equal(tooLarge.status, 502);
      assert.equal(countsAgainstHealth(busy), false);
      assert.equal(countsAgainstHealth(tooLarge), false);
      assert.equal(countsAgainstHealth(lost), true);
    });
    it('backs a busy upstream off for the base, doubling, at least its Retry-After, at most a minute', () => {
      assert.equal(busyBackoff(0, 2_000, undefined), 2_000);
      assert.equal(busyBackoff(2_000, 2_000, undefined), 4_000);
      assert.equal(busyBackoff(0, 2_000, 30_000), 30_000);
      assert.equal(busyBackoff(40_000, 2_000, undefined), MAX_BUSY_BACKOFF_MS);
      assert.equal(busyBackoff(0, 2_000, 3_600_000), MAX_BUSY_BACKOFF_MS);
    });
  });

  it('checks the eth_getLogs range against the known head', () => {
    const chain = { head: 1_000, finalized: 936 };
    assert.doesNotThrow(() => checkLogsRange([{ fromBlock: '0x0', toBlock: '0x64' }], 100, chain));
    assert.throws(() => checkLogsRange([{ fromBlock: '0x0', toBlock: '0x65' }], 100, chain), (err: RpcError) => err.code === -32602);
    assert.throws(() => checkLogsRange([{ fromBlock: '0x300' }], 100, chain), /"latest" \(1000\) spans 232 blocks/);
    assert.doesNotThrow(() => checkLogsRange([{ fromBlock: 'finalized' }], 100, chain));
    assert.doesNotThrow(() => checkLogsRange([{ fromBlock: '0x0', toBlock: '0xffff' }], 0, chain));
    assert.doesNotThrow(() => checkLogsRange([{ fromBlock: '0x0' }], 100, { head: undefined, finalized: undefined }));
    assert.doesNotThrow(() => checkLogsRange([{ blockHash: '0x12' }], 100, chain));
  });

  it('splices a cached result into the reply exactly as JSON.stringify would write it', () => {
    const block = { number: '0x10', hash: '0xab', transactions: [], extra: 'quote " and \\ backslash' };
    const raw = JSON.stringify(block);
    for (const id of [7, 'a"b', null]) {
      const spliced = serializeResponse(response(id, { result: block, raw }));
      assert.equal(spliced, JSON.stringify({ jsonrpc: '2.0', id, result: block }));
    }
    const batch = [response(1, { result: block, raw }), response(2, { result: '0x1' }), response(3, { error: { code: -32000, message: 'x' } })];
    assert.deepEqual(JSON.parse(serializeResponse(batch)), JSON.parse(JSON.stringify(batch)));
    // A reply serialized the plain way never carries the spliced text twice.
    assert.equal(JSON.stringify(response(1, { result: block, raw })), JSON.stringify({ jsonrpc: '2.0', id: 1, result: block }));
  });
});
