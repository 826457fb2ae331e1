/**
 * The gateway against today's Ethereum JSON-RPC specification (github.com/ethereum/execution-apis): a
 * fixture written from the specification's examples (each method's `examples` in src/eth/*.yaml, and the
 * cases of its tests/ corpus that the gateway once refused: null filters, omitted blocks, a block hash as
 * the block), with this chain's addresses, hashes and blocks where the specification names mainnet's. Each
 * request goes to anvil directly and through POST {network_url}/, REST POST (its POST list) and GET (its GET
 * list), WebSocket, and inside a batch on {network_url}/ and WebSocket; the answers must be the same apart
 * from `id` and `jsonrpc`, or differ only as one of DIFFERENCES says, each of which docs/gateway.md lists.
 * Nothing is mined while the fixture runs, so that "directly" and "through the gateway" see the same chain.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { id as keccakId, toBeHex, toQuantity } from 'ethers';
import { startTestService, type TestService } from '../support/service.js';
import { http, postJson, type HttpResult } from '../support/http.js';
import { WsClient } from '../support/ws.js';
import { prepareChain, probeInterface, DEV_ADDRESSES, type PreparedChain } from '../support/chain.js';
import { DEFAULT_RELAYED_METHODS, GET_METHODS, POST_METHODS } from '../../src/gateway/methods.js';
import { repoPath } from '../../src/shared/paths.js';

interface Request {
  name: string;
  method: string;
  params: (f: PreparedChain) => unknown[];
}

const r = (name: string, method: string, params: (f: PreparedChain) => unknown[]): Request => ({ name, method, params });
const [A0, A1] = DEV_ADDRESSES.map((a) => a.toLowerCase());
const SLOT0 = '0x' + '00'.repeat(32);
const POKED = keccakId('Poked(address,uint256)');
const stored = () => probeInterface().encodeFunctionData('stored');

/** The specification's examples, then the corpus cases, in the specification's order of files. */
const FIXTURE: Request[] = [
  // block.yaml
  r('eth_getBlockByHash example', 'eth_getBlockByHash', (f) => [f.pokeBlockHash, false]),
  r('eth_getBlockByNumber example', 'eth_getBlockByNumber', (f) => [toQuantity(f.pokeBlockNumber), false]),
  r('eth_getBlockTransactionCountByHash example', 'eth_getBlockTransactionCountByHash', (f) => [f.pokeBlockHash]),
  r('eth_getBlockTransactionCountByNumber example', 'eth_getBlockTransactionCountByNumber', (f) => [toQuantity(f.pokeBlockNumber)]),
  r('eth_getBlockReceipts example', 'eth_getBlockReceipts', () => ['latest']),
  r('block receipts by block hash', 'eth_getBlockReceipts', (f) => [f.pokeBlockHash]),
  r('eth_getBlockAccessList example', 'eth_getBlockAccessList', () => ['latest']),
  // capabilities.yaml, client.yaml
  r('eth_capabilities example', 'eth_capabilities', () => []),
  r('eth_chainId example', 'eth_chainId', () => []),
  r('eth_syncing example', 'eth_syncing', () => []),
  r('eth_coinbase example', 'eth_coinbase', () => []),
  r('eth_accounts example', 'eth_accounts', () => []),
  r('eth_blockNumber example', 'eth_blockNumber', () => []),
  r('eth_config example', 'eth_config', () => []),
  r('net_version example', 'net_version', () => []),
  // execute.yaml
  r('eth_call example', 'eth_call', () => [{ to: A1, value: '0x1' }, 'latest']),
  r('eth_call by block hash', 'eth_call', (f) => [{ to: f.probe, input: stored() }, f.pokeBlockHash]),
  r('eth_estimateGas example', 'eth_estimateGas', () => [{ from: A0, to: A1, value: '0x1' }]),
  r('eth_createAccessList example', 'eth_createAccessList', () => [{ from: A0, data: '0x608060806080608155' }, 'latest']),
  // fee_market.yaml
  r('eth_gasPrice example', 'eth_gasPrice', () => []),
  r('eth_baseFee example', 'eth_baseFee', () => []),
  r('eth_blobBaseFee example', 'eth_blobBaseFee', () => []),
  r('eth_maxPriorityFeePerGas example', 'eth_maxPriorityFeePerGas', () => []),
  r('eth_feeHistory example', 'eth_feeHistory', () => ['0x5', 'latest', [20, 30]]),
  // fill.yaml
  r('eth_fillTransaction', 'eth_fillTransaction', () => [{ from: A0, to: A1, value: '0x1' }]),
  // filter.yaml (eth_newFilter and its family: see the test of their own below)
  r('eth_getLogs example', 'eth_getLogs', (f) => [{ fromBlock: '0x1', toBlock: toQuantity(f.pokeBlockNumber), address: f.probe, topics: [] }]),
  r('logs with address null', 'eth_getLogs', () => [{ fromBlock: '0x0', toBlock: 'latest', address: null }]),
  r('logs with topics null', 'eth_getLogs', (f) => [{ fromBlock: '0x0', address: f.probe, topics: null }]),
  r('logs with address and topics null', 'eth_getLogs', () => [{ address: null, topics: null }]),
  r('logs of a block hash with null filters', 'eth_getLogs', (f) => [{ blockHash: f.pokeBlockHash, address: null, topics: null }]),
  r('logs with a null topic as wildcard', 'eth_getLogs', () => [{ fromBlock: '0x0', topics: [null, toBeHex(A0, 32)] }]),
  r('logs by exact topic', 'eth_getLogs', (f) => [{ fromBlock: '0x0', toBlock: toQuantity(f.pokeBlockNumber), topics: [POKED] }]),
  r('logs with blockHash and a range', 'eth_getLogs', (f) => [{ blockHash: f.pokeBlockHash, fromBlock: '0x1', toBlock: '0x2' }]),
  r('logs with five topics', 'eth_getLogs', () => [{ topics: [null, null, null, null, POKED] }]),
  // sign.yaml: keys held by the node (eth_sendTransaction is left out: it would mine a block)
  r('eth_sign example', 'eth_sign', () => [A0, '0xdeadbeaf']),
  r('eth_signTransaction example', 'eth_signTransaction', () => [{ from: A0, nonce: '0x9', to: A1, gas: '0x76c0', gasPrice: '0x9184e72a000', value: '0x9184e72a', input: '0xd46e' }]),
  // state.yaml
  r('eth_getBalance example', 'eth_getBalance', () => [A0, 'latest']),
  r('balance with the block omitted', 'eth_getBalance', () => [A1]),
  r('balance at a block hash', 'eth_getBalance', (f) => [A1, f.pokeBlockHash]),
  r('eth_getStorageAt example', 'eth_getStorageAt', (f) => [f.probe, '0x0', 'latest']),
  r('storage with the block omitted', 'eth_getStorageAt', (f) => [f.probe, '0x0']),
  r('storage of a 32-byte slot', 'eth_getStorageAt', (f) => [f.probe, SLOT0, toQuantity(f.pokeBlockNumber)]),
  r('eth_getStorageValues example', 'eth_getStorageValues', (f) => [{ [f.probe]: [SLOT0], [A0]: [SLOT0, '0x' + '00'.repeat(31) + '06'] }, 'latest']),
  r('storage values with the block omitted', 'eth_getStorageValues', (f) => [{ [f.probe]: [SLOT0] }]),
  r('storage values of nothing', 'eth_getStorageValues', () => [{}, 'latest']),
  r('eth_getTransactionCount example', 'eth_getTransactionCount', () => [A0, 'latest']),
  r('nonce with the block omitted', 'eth_getTransactionCount', () => [A0]),
  r('eth_getCode example', 'eth_getCode', (f) => [f.probe, 'latest']),
  r('code with the block omitted', 'eth_getCode', (f) => [f.probe]),
  r('eth_getProof example', 'eth_getProof', (f) => [f.probe, [SLOT0], 'latest']),
  r('proof with the block omitted', 'eth_getProof', () => [A0, []]),
  // submit.yaml: the example's raw transaction is mainnet's; this chain's own, already mined
  r('eth_sendRawTransaction example', 'eth_sendRawTransaction', (f) => [f.minedRawTx]),
  // transaction.yaml
  r('eth_getTransactionByHash example', 'eth_getTransactionByHash', (f) => [f.pokeTx]),
  r('eth_getTransactionByBlockHashAndIndex example', 'eth_getTransactionByBlockHashAndIndex', (f) => [f.pokeBlockHash, '0x0']),
  r('eth_getTransactionByBlockNumberAndIndex example', 'eth_getTransactionByBlockNumberAndIndex', (f) => [toQuantity(f.pokeBlockNumber), '0x0']),
  r('eth_getTransactionReceipt example', 'eth_getTransactionReceipt', (f) => [f.pokeTx]),
];

/** The state reads whose block the specification makes optional ("default: 'latest'"). */
const LATEST_BY_DEFAULT: Record<string, number> = {
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getTransactionCount: 1,
  eth_getStorageAt: 2,
  eth_getProof: 2,
  eth_getStorageValues: 1,
};

/**
 * How an answer through the gateway may differ from the node's, each with the words docs/gateway.md says
 * it in. `explains` gets the node's answer, the gateway's, and the node's answer to the call as the gateway
 * sent it on (`direct`); it says whether this difference accounts for what was seen.
 */
interface Difference {
  name: string;
  docs: string;
  explains(c: { method: string; params: unknown[]; node: any; gateway: any; direct: (method: string, params: unknown[]) => Promise<any> }): Promise<boolean>;
}

const DIFFERENCES: Difference[] = [
  {
    name: 'an omitted block is relayed as latest',
    docs: 'an omitted block is sent on as `latest`',
    async explains({ method, params, gateway, direct }) {
      if (LATEST_BY_DEFAULT[method] !== params.length) return false;
      return sameAnswer(gateway, await direct(method, [...params, 'latest']));
    },
  },
  {
    name: 'methods that use keys held by the node are refused',
    docs: 'Methods that use keys held by the node',
    async explains({ method, gateway }) {
      return ['eth_sign', 'eth_signTransaction', 'eth_sendTransaction'].includes(method) && gateway.error?.code === -32601;
    },
  },
];

/** Equal apart from `id` and `jsonrpc`. */
function sameAnswer(a: any, b: any): boolean {
  try {
    assert.deepEqual({ ...a, id: 0, jsonrpc: '2.0' }, { ...b, id: 0, jsonrpc: '2.0' });
    return true;
  } catch {
    return false;
  }
}

interface Channel {
  name: string;
  accepts(method: string): boolean;
  send(method: string, params: unknown[], id: number): Promise<{ status?: number; body: any }>;
}

const GET_LIST = new Set(GET_METHODS);
const POST_LIST = new Set(POST_METHODS);
const envelope = (method: string, params: unknown[], id: number | string) => ({ jsonrpc: '2.0', id, method, params });
const answerOf = (res: HttpResult) => ({ status: res.status, body: res.json });

describe('gateway against the execution-apis specification: its examples answered as the node answers them', function () {
  this.timeout(120_000);
  let service: TestService;
  let anvilUrl: string;
  let fixture: PreparedChain;
  let ws: WsClient;
  let channels: Channel[];
  const met = new Set<string>();

  async function direct(method: string, params: unknown[]): Promise<any> {
    const res = await postJson(anvilUrl, envelope(method, params, 1));
    assert.equal(res.status, 200);
    return res.json;
  }

  /** Fails unless the gateway's answer is the node's, or differs only as a documented difference says. */
  async function compare(label: string, method: string, params: unknown[], node: any, gateway: any): Promise<void> {
    if (sameAnswer(gateway, node)) return;
    for (const difference of DIFFERENCES) {
      if (await difference.explains({ method, params, node, gateway, direct })) {
        met.add(difference.name);
        return;
      }
    }
    assert.fail(`${label}: an undocumented difference\n  node:    ${JSON.stringify(node)}\n  gateway: ${JSON.stringify(gateway)}`);
  }

  before(async () => {
    service = await startTestService({ PORT_MAINNET: '0' });
    anvilUrl = service.gateway.network('mainnet').anvil!.httpUrl;
    fixture = await prepareChain(anvilUrl);
    const network = service.networkUrls.mainnet;
    ws = await WsClient.connect(network.replace('http', 'ws'));
    channels = [
      { name: 'POST {network_url}/', accepts: () => true, send: async (m, p, id) => answerOf(await postJson(`${network}/`, envelope(m, p, id))) },
      {
        name: 'REST POST',
        accepts: (m) => POST_LIST.has(m),
        send: async (m, p, id) => answerOf(await postJson(`${service.url}/v1/jsonrpc/mainnet/${m}`, envelope(m, p, id))),
      },
      {
        name: 'REST GET',
        accepts: (m) => GET_LIST.has(m),
        send: async (m, p, id) => answerOf(await http(`${service.url}/v1/jsonrpc/mainnet/${m}?params=${encodeURIComponent(JSON.stringify(p))}&id=${id}`)),
      },
      { name: 'WebSocket', accepts: () => true, send: async (m, p, id) => ({ body: await ws.request(envelope(m, p, id)) }) },
    ];
  });

  after(async () => {
    await ws?.close();
    await service?.stop();
  });

  it('covers every method of the specification the gateway relays, and the cases it once refused', () => {
    const methods = new Set(FIXTURE.map((q) => q.method));
    for (const m of Object.keys(LATEST_BY_DEFAULT)) {
      assert.ok(methods.has(m), m);
      assert.ok(FIXTURE.some((q) => q.method === m && q.params(fixture).length === LATEST_BY_DEFAULT[m]), `${m} with its block omitted`);
    }
    for (const m of ['eth_config', 'eth_getStorageValues', 'eth_getLogs', 'eth_sign']) assert.ok(methods.has(m), m);
    const logFilters = FIXTURE.filter((q) => q.method === 'eth_getLogs').map((q) => q.params(fixture)[0] as Record<string, unknown>);
    assert.ok(logFilters.some((f) => f.address === null));
    assert.ok(logFilters.some((f) => f.topics === null));
  });

  let nextId = 100;
  for (const request of FIXTURE) {
    it(`${request.method}: ${request.name}`, async () => {
      const params = request.params(fixture);
      const node = await direct(request.method, params);
      const used = channels.filter((ch) => ch.accepts(request.method));
      for (const channel of used) {
        const id = nextId++;
        const answer = await channel.send(request.method, params, id);
        const label = `${channel.name}: ${JSON.stringify(answer.body)}`;
        assert.equal(answer.body.id, id, label);
        assert.equal(answer.body.jsonrpc, '2.0', label);
        if (answer.status !== undefined && answer.body.result !== undefined) assert.equal(answer.status, 200, label);
        await compare(channel.name, request.method, params, node, answer.body);
      }
      // The chain did not move meanwhile, so the comparison above was against the same state.
      assert.ok(sameAnswer(await direct(request.method, params), node), 'the chain moved');
    });
  }

  it('answers the whole fixture as one batch, on {network_url}/ and WebSocket, item by item', async () => {
    const requests = FIXTURE.map((q, i) => envelope(q.method, q.params(fixture), `b${i}`));
    const nodeAnswers = await Promise.all(requests.map((q) => direct(q.method, q.params)));
    const overHttp = await postJson(`${service.networkUrls.mainnet}/`, requests);
    assert.equal(overHttp.status, 200);
    const overWs = await ws.request(requests);
    for (const [channel, batch] of [['batch on {network_url}/', overHttp.json], ['batch on WebSocket', overWs]] as const) {
      assert.equal(batch.length, requests.length);
      for (const [i, item] of (batch as any[]).entries()) {
        assert.equal(item.id, `b${i}`);
        await compare(`${channel}, ${FIXTURE[i].name}`, requests[i].method, requests[i].params, nodeAnswers[i], item);
      }
    }
  });

  it('makes filters with null address and topics, whose logs are the node\'s own', async () => {
    const filter = { fromBlock: '0x0', address: null, topics: null };
    const nodeFilter = (await direct('eth_newFilter', [filter])).result;
    assert.match(nodeFilter, /^0x[0-9a-f]+$/);
    const nodeLogs = await direct('eth_getFilterLogs', [nodeFilter]);
    assert.ok(nodeLogs.result.length > 0, 'the chain has logs');
    for (const channel of channels.filter((ch) => ch.accepts('eth_newFilter'))) {
      const made = (await channel.send('eth_newFilter', [filter], nextId++)).body;
      assert.match(made.result, /^0x[0-9a-f]+$/, `${channel.name}: ${JSON.stringify(made)}`);
      const logs = (await channel.send('eth_getFilterLogs', [made.result], nextId++)).body;
      assert.ok(sameAnswer(logs, nodeLogs), `${channel.name}: ${JSON.stringify(logs)}`);
      assert.equal((await channel.send('eth_uninstallFilter', [made.result], nextId++)).body.result, true);
    }
  });

  it('met each documented difference, and docs/gateway.md lists every one', () => {
    const docs = readFileSync(repoPath('docs', 'gateway.md'), 'utf8').replace(/\s+/g, ' ');
    for (const difference of DIFFERENCES) {
      assert.ok(docs.includes(difference.docs), `docs/gateway.md does not say "${difference.docs}"`);
      assert.ok(met.has(difference.name), `"${difference.name}" was never met: the fixture no longer needs it`);
    }
  });

  it('docs/gateway.md names every method relayed by default', () => {
    const docs = readFileSync(repoPath('docs', 'gateway.md'), 'utf8');
    for (const method of DEFAULT_RELAYED_METHODS) assert.match(docs, new RegExp(`\\b${method}\\b`), method);
  });
});
