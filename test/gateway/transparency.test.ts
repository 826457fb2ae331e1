/**
 * Transparency: every request of the corpus below is sent to the embedded anvil directly and through each
 * channel of the gateway, and the answers must be equal apart from `id`. The chain is prepared first
 * (contract deployed, transfer, log) and nothing is mined while the corpus runs, so that "directly" and
 * "through the gateway" see the same chain.
 */
import assert from 'node:assert/strict';
import { Interface, keccak256, toBeHex, toQuantity, id as keccakId } from 'ethers';
import { startTestService, type TestService } from '../support/service.js';
import { http, postJson, postWithHost, type HttpResult } from '../support/http.js';
import { WsClient } from '../support/ws.js';
import { until } from '../support/wait.js';
import { prepareChain, probeInterface, signedTransfer, DEV_ADDRESSES, DEV_KEYS, type PreparedChain } from '../support/chain.js';
import { GET_METHODS, POST_METHODS } from '../../src/gateway/methods.js';

/** What anvil answers: a result, a null result, an error object, or an error object carrying revert data. */
type Kind = 'result' | 'null' | 'error' | 'revert-data';

interface Case {
  name: string;
  method: string;
  /** Built once the chain is prepared, from what is on it. */
  params: (f: Fixture) => unknown[];
  /** Checked on anvil's own answer, so that each case tests what its name says. */
  kind: Kind;
}

interface Fixture extends PreparedChain {
  probeAbi: Interface;
  wrongChainTx: string;
  unfundedTx: string;
}

const UNKNOWN_HASH = '0x' + 'ab'.repeat(32);
const FAR_BLOCK = '0xf4240'; // block 1,000,000: far ahead of a fresh dev chain
const NOBODY = '0x000000000000000000000000000000000000dead';
const UNFUNDED_KEY = '0x' + '11'.repeat(32);
const [A0, A1] = DEV_ADDRESSES.map((a) => a.toLowerCase());

const c = (name: string, method: string, kind: Kind, params: (f: Fixture) => unknown[]): Case => ({ name, method, kind, params });
const callData = (f: Fixture, fn: string, args: unknown[] = []) => f.probeAbi.encodeFunctionData(fn, args);

const CORPUS: Case[] = [
  // GET list
  c('accounts', 'eth_accounts', 'result', () => []),
  c('block number', 'eth_blockNumber', 'result', () => []),
  c('gas price', 'eth_gasPrice', 'result', () => []),
  c('balance at latest', 'eth_getBalance', 'result', () => [A0, 'latest']),
  c('balance at block 1', 'eth_getBalance', 'result', () => [A1, '0x1']),
  c('balance at earliest', 'eth_getBalance', 'result', () => [A1, 'earliest']),
  c('balance by EIP-1898 block hash', 'eth_getBalance', 'result', (f) => [A0, { blockHash: f.pokeBlockHash }]),
  c('balance of an unused address', 'eth_getBalance', 'result', () => [NOBODY, 'latest']),
  c('balance at a block far ahead', 'eth_getBalance', 'error', () => [A0, FAR_BLOCK]),
  c('balance at an unknown block hash', 'eth_getBalance', 'error', () => [A0, { blockHash: UNKNOWN_HASH }]),
  c('block by hash', 'eth_getBlockByHash', 'result', (f) => [f.pokeBlockHash, false]),
  c('block by hash with transactions', 'eth_getBlockByHash', 'result', (f) => [f.pokeBlockHash, true]),
  c('block by unknown hash', 'eth_getBlockByHash', 'null', () => [UNKNOWN_HASH, false]),
  c('latest block with transactions', 'eth_getBlockByNumber', 'result', () => ['latest', true]),
  c('genesis block', 'eth_getBlockByNumber', 'result', () => ['0x0', false]),
  c('earliest block', 'eth_getBlockByNumber', 'result', () => ['earliest', false]),
  c('block far ahead', 'eth_getBlockByNumber', 'null', () => [FAR_BLOCK, false]),
  c('transaction count of a block by hash', 'eth_getBlockTransactionCountByHash', 'result', (f) => [f.pokeBlockHash]),
  c('transaction count of an unknown block hash', 'eth_getBlockTransactionCountByHash', 'null', () => [UNKNOWN_HASH]),
  c('transaction count of the latest block', 'eth_getBlockTransactionCountByNumber', 'result', () => ['latest']),
  c('transaction count of a block far ahead', 'eth_getBlockTransactionCountByNumber', 'error', () => [FAR_BLOCK]),
  c('code of the contract', 'eth_getCode', 'result', (f) => [f.probe, 'latest']),
  c('code of an account', 'eth_getCode', 'result', () => [A0, 'latest']),
  c('code at a block far ahead', 'eth_getCode', 'error', (f) => [f.probe, FAR_BLOCK]),
  c('all logs', 'eth_getLogs', 'result', () => [{ fromBlock: '0x0', toBlock: 'latest' }]),
  c('logs of a block by hash', 'eth_getLogs', 'result', (f) => [{ blockHash: f.pokeBlockHash }]),
  c('logs by address and topic', 'eth_getLogs', 'result', (f) => [
    { address: f.probe, topics: [keccakId('Poked(address,uint256)'), toBeHex(A0, 32)], fromBlock: 'earliest' },
  ]),
  c('logs of an address without logs', 'eth_getLogs', 'result', () => [{ address: NOBODY, fromBlock: '0x0' }]),
  c('logs of an unknown block hash', 'eth_getLogs', 'error', () => [{ blockHash: UNKNOWN_HASH }]),
  c('logs of blocks far ahead', 'eth_getLogs', 'error', () => [{ fromBlock: FAR_BLOCK, toBlock: '0xf4241' }]),
  c('uncle of the latest block', 'eth_getUncleByBlockNumberAndIndex', 'null', () => ['latest', '0x0']),
  c('uncle of a block far ahead', 'eth_getUncleByBlockNumberAndIndex', 'error', () => [FAR_BLOCK, '0x0']),
  c('uncle of a block by hash', 'eth_getUncleByBlockHashAndIndex', 'null', (f) => [f.pokeBlockHash, '0x0']),
  c('uncle of an unknown block hash', 'eth_getUncleByBlockHashAndIndex', 'error', () => [UNKNOWN_HASH, '0x0']),
  c('uncle count of a block', 'eth_getUncleCountByBlockHash', 'result', (f) => [f.pokeBlockHash]),
  c('uncle count of an unknown block hash', 'eth_getUncleCountByBlockHash', 'error', () => [UNKNOWN_HASH]),
  c('nonce at latest', 'eth_getTransactionCount', 'result', () => [A0, 'latest']),
  c('nonce at pending', 'eth_getTransactionCount', 'result', () => [A0, 'pending']),
  c('nonce at genesis', 'eth_getTransactionCount', 'result', () => [A0, '0x0']),
  c('nonce at a block far ahead', 'eth_getTransactionCount', 'error', () => [A0, FAR_BLOCK]),
  c('transaction by block hash and index', 'eth_getTransactionByBlockHashAndIndex', 'result', (f) => [f.pokeBlockHash, '0x0']),
  c('transaction by block hash and an index past the end', 'eth_getTransactionByBlockHashAndIndex', 'null', (f) => [f.pokeBlockHash, '0x5']),
  c('transaction by unknown block hash', 'eth_getTransactionByBlockHashAndIndex', 'null', () => [UNKNOWN_HASH, '0x0']),
  c('transaction by block number and index', 'eth_getTransactionByBlockNumberAndIndex', 'result', (f) => [toQuantity(f.pokeBlockNumber), '0x0']),
  c('transaction by a block far ahead', 'eth_getTransactionByBlockNumberAndIndex', 'null', () => [FAR_BLOCK, '0x0']),
  c('receipt with a log', 'eth_getTransactionReceipt', 'result', (f) => [f.pokeTx]),
  c('receipt of a contract creation', 'eth_getTransactionReceipt', 'result', (f) => [f.deployTx]),
  c('receipt of a transfer', 'eth_getTransactionReceipt', 'result', (f) => [f.transferTx]),
  c('receipt of an unknown transaction', 'eth_getTransactionReceipt', 'null', () => [UNKNOWN_HASH]),
  // POST list
  c('call a view', 'eth_call', 'result', (f) => [{ to: f.probe, data: callData(f, 'stored') }, 'latest']),
  c('call at block 1', 'eth_call', 'result', (f) => [{ to: f.probe, data: callData(f, 'stored') }, '0x1']),
  c('call before the contract existed', 'eth_call', 'result', (f) => [{ to: f.probe, data: callData(f, 'stored') }, '0x0']),
  c('call that reverts with a reason', 'eth_call', 'revert-data', (f) => [{ to: f.probe, data: callData(f, 'fail') }, 'latest']),
  c('call that reverts with a custom error', 'eth_call', 'revert-data', (f) => [{ from: A1, to: f.probe, data: callData(f, 'failCustom') }]),
  c('call of a missing function', 'eth_call', 'error', (f) => [{ to: f.probe, data: '0xdeadbeef' }, 'latest']),
  c('call at a block far ahead', 'eth_call', 'error', (f) => [{ to: f.probe, data: callData(f, 'stored') }, FAR_BLOCK]),
  c('estimate a transfer', 'eth_estimateGas', 'result', () => [{ from: A0, to: A1, value: '0x1' }]),
  c('estimate a contract call', 'eth_estimateGas', 'result', (f) => [{ from: A0, to: f.probe, data: callData(f, 'poke', [5]) }, 'latest']),
  c('estimate a reverting call', 'eth_estimateGas', 'revert-data', (f) => [{ from: A0, to: f.probe, data: callData(f, 'fail') }]),
  c('estimate a creation whose init code is invalid', 'eth_estimateGas', 'error', () => [{ from: A0, data: '0xfe' }]),
  c('raw transaction that is not RLP', 'eth_sendRawTransaction', 'error', () => ['0x1234']),
  c('raw transaction already mined', 'eth_sendRawTransaction', 'error', (f) => [f.minedRawTx]),
  c('raw transaction for another chain', 'eth_sendRawTransaction', 'error', (f) => [f.wrongChainTx]),
  c('raw transaction from an unfunded account', 'eth_sendRawTransaction', 'error', (f) => [f.unfundedTx]),
  c('submit work', 'eth_submitWork', 'error', () => ['0x0000000000000001', '0x' + '12'.repeat(32), '0x' + '34'.repeat(32)]),
  c('submit hashrate', 'eth_submitHashrate', 'error', () => ['0x' + '00'.repeat(31) + '01', '0x' + '56'.repeat(32)]),
  // relayed methods beyond the two lists ({network_url}/ and WebSocket only)
  c('chain id', 'eth_chainId', 'result', () => []),
  c('net version', 'net_version', 'result', () => []),
  c('client version', 'web3_clientVersion', 'result', () => []),
  c('transaction by hash', 'eth_getTransactionByHash', 'result', (f) => [f.pokeTx]),
  c('transaction by unknown hash', 'eth_getTransactionByHash', 'null', () => [UNKNOWN_HASH]),
  c('storage slot 0', 'eth_getStorageAt', 'result', (f) => [f.probe, '0x0', 'latest']),
  c('fee history', 'eth_feeHistory', 'result', () => ['0x2', 'latest', [25, 75]]),
  c('max priority fee', 'eth_maxPriorityFeePerGas', 'result', () => []),
  c('block receipts', 'eth_getBlockReceipts', 'result', (f) => [toQuantity(f.pokeBlockNumber)]),
  c('a method anvil does not implement', 'net_peerCount', 'error', () => []),
];

const GET_LIST = new Set(GET_METHODS);
const POST_LIST = new Set(POST_METHODS);

interface ChannelAnswer {
  /** HTTP status; undefined on WebSocket. */
  status?: number;
  body: any;
}

interface Channel {
  name: string;
  /** Whether the status follows the /v1/jsonrpc table (502 for an upstream error object) rather than 200. */
  rest: boolean;
  accepts(method: string): boolean;
  send(method: string, params: unknown[], id: number): Promise<ChannelAnswer>;
}

const isRelayed = () => true;

function kindOf(answer: any): Kind {
  if (answer.error === undefined) return answer.result === null ? 'null' : 'result';
  return typeof answer.error.data === 'string' && /^0x[0-9a-f]{8,}$/.test(answer.error.data) ? 'revert-data' : 'error';
}

function httpAnswer(res: HttpResult): ChannelAnswer {
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return { status: res.status, body: res.json };
}

describe('gateway transparency: each channel answers what anvil answers', function () {
  this.timeout(120_000);
  let service: TestService;
  let anvilUrl: string;
  let fixture: Fixture;
  const sockets: WsClient[] = [];
  let channels: Channel[];

  async function direct(method: string, params: unknown[]): Promise<any> {
    const res = await postJson(anvilUrl, { jsonrpc: '2.0', id: 1, method, params });
    assert.equal(res.status, 200);
    return res.json;
  }

  before(async () => {
    service = await startTestService({ PORT_MAINNET: '0' });
    anvilUrl = service.gateway.network('mainnet').anvil!.httpUrl;
    const prepared = await prepareChain(anvilUrl);
    fixture = {
      ...prepared,
      probeAbi: probeInterface(),
      wrongChainTx: await signedTransfer(DEV_KEYS[2], 0, { chainId: 5 }),
      unfundedTx: await signedTransfer(UNFUNDED_KEY, 0),
    };

    const main = service.url;
    const dedicated = service.networkUrls.mainnet;
    const wsHost = await WsClient.connect(`${main.replace('http', 'ws')}/ws`, 'mainnet.localhost');
    const wsRest = await WsClient.connect(`${main.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`);
    const wsPort = await WsClient.connect(dedicated.replace('http', 'ws'));
    sockets.push(wsHost, wsRest, wsPort);
    const envelope = (method: string, params: unknown[], id: number) => ({ jsonrpc: '2.0', id, method, params });
    const overWs = (ws: WsClient) => async (method: string, params: unknown[], id: number) => ({
      body: await ws.request(envelope(method, params, id)),
    });

    channels = [
      {
        name: 'REST GET',
        rest: true,
        accepts: (m) => GET_LIST.has(m),
        send: async (method, params, id) =>
          httpAnswer(await http(`${main}/v1/jsonrpc/mainnet/${method}?params=${encodeURIComponent(JSON.stringify(params))}&id=${id}`)),
      },
      {
        name: 'REST POST /v1/jsonrpc/mainnet',
        rest: true,
        accepts: (m) => POST_LIST.has(m),
        send: async (method, params, id) => httpAnswer(await postJson(`${main}/v1/jsonrpc/mainnet`, envelope(method, params, id))),
      },
      {
        name: 'REST POST /v1/jsonrpc/mainnet/:method',
        rest: true,
        accepts: (m) => POST_LIST.has(m),
        send: async (method, params, id) =>
          httpAnswer(await postJson(`${main}/v1/jsonrpc/mainnet/${method}`, envelope(method, params, id))),
      },
      {
        name: '{network_url}/ by Host',
        rest: false,
        accepts: isRelayed,
        send: async (method, params, id) => httpAnswer(await postWithHost(`${main}/`, 'mainnet.localhost', envelope(method, params, id))),
      },
      {
        name: '{network_url}/ by dedicated port',
        rest: false,
        accepts: isRelayed,
        send: async (method, params, id) => httpAnswer(await postJson(`${dedicated}/`, envelope(method, params, id))),
      },
      { name: 'WebSocket /ws by Host', rest: false, accepts: isRelayed, send: overWs(wsHost) },
      { name: 'WebSocket /v1/jsonrpc/mainnet/ws', rest: false, accepts: isRelayed, send: overWs(wsRest) },
      { name: 'WebSocket on the dedicated port', rest: false, accepts: isRelayed, send: overWs(wsPort) },
    ];
  });

  after(async () => {
    await Promise.all(sockets.map((s) => s.close()));
    await service?.stop();
  });

  it('has a corpus of at least 60 requests covering every GET-list and POST-list method', () => {
    assert.ok(CORPUS.length >= 60, `only ${CORPUS.length} requests`);
    const methods = new Set(CORPUS.map((k) => k.method));
    for (const m of [...GET_METHODS, ...POST_METHODS]) assert.ok(methods.has(m), `${m} is not in the corpus`);
    for (const kind of ['result', 'null', 'error', 'revert-data']) assert.ok(CORPUS.some((k) => k.kind === kind), kind);
  });

  let nextId = 100;
  for (const testCase of CORPUS) {
    it(`${testCase.method}: ${testCase.name}`, async () => {
      const params = testCase.params(fixture);
      const expected = await direct(testCase.method, params);
      assert.equal(kindOf(expected), testCase.kind, `anvil answered ${JSON.stringify(expected)}`);
      const upstreamError = expected.error !== undefined;

      const used = channels.filter((ch) => ch.accepts(testCase.method));
      assert.ok(used.length >= 3);
      for (const channel of used) {
        const id = nextId++;
        const answer = await channel.send(testCase.method, params, id);
        const label = `${channel.name}: ${JSON.stringify(answer.body)}`;
        if (answer.status !== undefined) {
          assert.equal(answer.status, channel.rest && upstreamError ? 502 : 200, label);
        }
        assert.equal(answer.body.id, id, label);
        assert.deepEqual({ ...answer.body, id: 1 }, expected, label);
      }
      // The chain did not move meanwhile, so the comparison above was against the same state.
      assert.deepEqual(await direct(testCase.method, params), expected);
    });
  }

  it('answers the whole corpus as one batch on {network_url}/ and WebSocket, item by item as anvil does', async () => {
    const requests = CORPUS.map((k, i) => ({ jsonrpc: '2.0', id: `b${i}`, method: k.method, params: k.params(fixture) }));
    const expected = await Promise.all(requests.map((r) => direct(r.method, r.params)));
    const overHttp = await postWithHost(`${service.url}/`, 'mainnet.localhost', requests);
    assert.equal(overHttp.status, 200);
    const overWs = await sockets[1].request(requests);
    for (const batch of [overHttp.json, overWs]) {
      assert.equal(batch.length, requests.length);
      batch.forEach((item: any, i: number) => {
        assert.equal(item.id, `b${i}`);
        assert.deepEqual({ ...item, id: 1 }, expected[i], requests[i].method);
      });
    }
  });

  it('relays a valid eth_sendRawTransaction on each POST channel with the hash anvil gives', async () => {
    // Each send mines a block, so each channel gets its own transaction (consecutive nonces of account #2).
    const postChannels = channels.filter((ch) => ch.accepts('eth_sendRawTransaction'));
    const start = Number((await direct('eth_getTransactionCount', [DEV_ADDRESSES[2], 'latest'])).result);
    const raw = await signedTransfer(DEV_KEYS[2], start);
    const viaAnvil = await direct('eth_sendRawTransaction', [raw]);
    assert.match(viaAnvil.result, /^0x[0-9a-f]{64}$/, JSON.stringify(viaAnvil));
    for (const [i, channel] of postChannels.entries()) {
      const tx = await signedTransfer(DEV_KEYS[2], start + 1 + i);
      const answer = await channel.send('eth_sendRawTransaction', [tx], 900 + i);
      assert.equal(answer.status ?? 200, 200, channel.name);
      assert.equal(answer.body.result, keccak256(tx), channel.name);
      // anvil mines a sent transaction right after answering, so the receipt may take a moment.
      let receipt: any;
      await until(async () => (receipt = (await direct('eth_getTransactionReceipt', [answer.body.result])).result) !== null, 'the receipt');
      assert.equal(receipt.status, '0x1', `${channel.name}: ${JSON.stringify(answer.body)}`);
      // What anvil answers for the same transaction sent again, through the channel and directly.
      const again = await channel.send('eth_sendRawTransaction', [tx], 950 + i);
      assert.deepEqual({ ...again.body, id: 1 }, await direct('eth_sendRawTransaction', [tx]), channel.name);
    }
  });
});
