/**
 * The per-method params schemas (schemas/jsonrpc/method-params.schema.json): every GET- and POST-list
 * method has one, and every one compiles under the project's strict Ajv instance (a schema Ajv refuses
 * would otherwise only show up as a 500 on the first request for that method). They are never stricter than
 * the Ethereum execution-apis specification: what it allows passes, what it does not is refused.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { validator, hasDefinition } from '../../src/shared/schemas.js';
import { repoPath } from '../../src/shared/paths.js';
import { GET_METHODS, POST_METHODS, DEFAULT_RELAYED_METHODS } from '../../src/gateway/methods.js';

const FILE = 'jsonrpc/method-params.schema.json';

describe('method params schemas', () => {
  const defined = Object.keys(JSON.parse(readFileSync(repoPath('schemas', FILE), 'utf8')).$defs);

  it('define the params of every GET-list and POST-list method', () => {
    for (const method of [...GET_METHODS, ...POST_METHODS]) assert.ok(hasDefinition(FILE, method), method);
  });

  it('only for methods that are relayed by default', () => {
    for (const method of defined) assert.ok(DEFAULT_RELAYED_METHODS.includes(method), method);
  });

  it('all compile under strict Ajv', () => {
    for (const method of defined) assert.equal(typeof validator(`${FILE}#/$defs/${method}`), 'function', method);
  });

  it('accept optional trailing params and refuse extra ones', () => {
    const call = validator(`${FILE}#/$defs/eth_call`);
    const tx = { to: '0x' + '11'.repeat(20), data: '0x' };
    assert.equal(call([tx]), true);
    assert.equal(call([tx, 'latest']), true);
    assert.equal(call([tx, 'latest', {}, {}]), true);
    assert.equal(call([tx, 'latest', {}, {}, {}]), false);
    assert.equal(call([]), false);
  });

  // What the Ethereum execution-apis specification lets a client send (its schemas, and the requests of its
  // tests/ corpus): none of it may be refused before a node sees it.
  const A = '0x' + '11'.repeat(20);
  const HASH = '0x' + 'ab'.repeat(32);
  const allowed: [string, unknown[]][] = [
    ['eth_getLogs', [{ address: null, topics: null }]],
    ['eth_getLogs', [{ fromBlock: '0x1', toBlock: 'latest', address: null }]],
    ['eth_getLogs', [{ topics: [null, [HASH]] }]],
    ['eth_getLogs', [{ blockHash: HASH, topics: null }]],
    ['eth_getLogs', [{ blockHash: HASH, fromBlock: '0x0' }]], // the spec's schema allows it; the node refuses it
    ['eth_getLogs', [{ topics: [null, null, null, null, null] }]], // no length limit in the spec; nodes have one
    ['eth_newFilter', [{ address: null, topics: null }]],
    ['eth_newFilter', [{ address: [A, A], topics: [HASH] }]],
    ['eth_getBalance', [A]],
    ['eth_getBalance', [A, HASH]], // a block hash as the block
    ['eth_getCode', [A]],
    ['eth_getTransactionCount', [A]],
    ['eth_getStorageAt', [A, '0x0']],
    ['eth_getStorageAt', [A, '0x' + '00'.repeat(32), 'latest']],
    ['eth_getStorageAt', [A, '0x']],
    ['eth_getProof', [A, ['0x0']]],
    ['eth_getStorageValues', [{ [A]: ['0x0', '0x' + '00'.repeat(32)] }]],
    ['eth_getStorageValues', [{}, 'latest']],
    ['eth_config', []],
    ['eth_getBlockReceipts', [HASH]],
    ['eth_getBlockTransactionCountByHash', []], // its param is not marked required
    ['eth_call', [{ to: A, input: '0x123' }, HASH]], // bytes of odd length match the spec's pattern
    ['eth_sendRawTransaction', ['0xabc']],
  ];
  for (const [method, params] of allowed) {
    it(`accept ${method} ${JSON.stringify(params)}`, () => {
      const validate = validator(`${FILE}#/$defs/${method}`);
      assert.equal(validate(params), true, JSON.stringify(validate.errors));
    });
  }

  // What no conforming client sends: the gateway still answers -32602 itself (docs/gateway.md).
  const refused: [string, unknown[]][] = [
    ['eth_getLogs', [{ address: 'nope' }]],
    ['eth_getLogs', [{ topics: ['0x12'] }]],
    ['eth_getLogs', [{ topics: 'x' }]],
    ['eth_getLogs', []],
    ['eth_getBalance', []],
    ['eth_getBalance', [A, 'lastest']],
    ['eth_getBalance', [A, 'latest', 'extra']],
    ['eth_getStorageAt', [A]],
    ['eth_getStorageAt', [A, '0x' + '00'.repeat(33)]],
    ['eth_getStorageValues', [{ [A]: '0x0' }]],
    ['eth_config', [1]],
    ['eth_getBlockByNumber', ['0x1', 'yes']],
  ];
  for (const [method, params] of refused) {
    it(`refuse ${method} ${JSON.stringify(params)}`, () => {
      assert.equal(validator(`${FILE}#/$defs/${method}`)(params), false);
    });
  }
});
