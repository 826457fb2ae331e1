/**
 * The per-method params schemas (schemas/jsonrpc/method-params.schema.json): every GET- and POST-list
 * method has one, and every one compiles under the project's strict Ajv instance. A schema Ajv refuses
 * would otherwise only show up as a 500 on the first request for that method.
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

  it('refuse a log filter with both blockHash and a block range', () => {
    const logs = validator(`${FILE}#/$defs/eth_getLogs`);
    const blockHash = '0x' + 'ab'.repeat(32);
    assert.equal(logs([{ blockHash }]), true);
    assert.equal(logs([{ fromBlock: '0x0', toBlock: 'latest' }]), true);
    assert.equal(logs([{ blockHash, fromBlock: '0x0' }]), false);
    assert.equal(logs([{ blockHash, toBlock: 'latest' }]), false);
  });
});
