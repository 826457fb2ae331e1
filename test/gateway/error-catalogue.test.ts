/**
 * The gateway's error catalogue is the one place its statuses and codes are written: every entry has a
 * status and a JSON-RPC code, a client's mistake is never 5xx, every entry is made by a constructor and
 * raised somewhere, no source of the gateway makes an RpcError but errors.ts, and docs/gateway.md's status
 * table lists exactly the catalogue's (status, code) pairs.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ACCESS_REFUSALS, GATEWAY_ERRORS, LISTENER_REFUSALS, RpcError, UpstreamError, asRpcError, fromRefusal, listenerRefusal, rpcErrors, type GatewayErrorName } from '../../src/gateway/errors.js';
import { PayloadTooLargeError } from '../../src/http/io.js';
import { AccessRefusal } from '../../src/access/errors.js';
import { repoPath } from '../../src/shared/paths.js';

const NAMES = Object.keys(GATEWAY_ERRORS) as GatewayErrorName[];

/** Arguments for every constructor: a constructor added without an entry here does not compile. */
const SAMPLE_ARGS: { [K in keyof typeof rpcErrors]: Parameters<(typeof rpcErrors)[K]> } = {
  parse: ['x'],
  invalidRequest: ['x'],
  invalidParams: ['x'],
  invalidLogsFilter: ['x'],
  subscriptionParams: ['x'],
  methodNotAllowed: ['eth_x', 'here'],
  noSubscriptionUpstream: ['newPendingTransactions', 'mainnet'],
  unknownNetwork: ['x', ['mainnet']],
  unknownHostNetwork: ['x.localhost', ['mainnet']],
  notFound: ['/x'],
  upgradeRequired: [],
  wrongHttpMethod: [['POST']],
  handshakeRefused: ['PUT', 'x'],
  contentType: ['text/plain'],
  bodyTooLarge: [16],
  batchTooLarge: [2],
  rateLimited: ['x', 1],
  tooManySubscriptions: [1],
  tooManyConnections: ['x'],
  serviceFull: ['x'],
  unauthorized: ['x'],
  starting: [],
  internal: [],
};

const made = (name: keyof typeof rpcErrors): RpcError => (rpcErrors[name] as (...args: unknown[]) => RpcError)(...SAMPLE_ARGS[name]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the gateway error catalogue', () => {
  it('gives every entry a status, a JSON-RPC code and a meaning; 5xx only for its own fault, the upstreams, starting and a full service', () => {
    for (const name of NAMES) {
      const { status, code, when } = GATEWAY_ERRORS[name];
      assert.ok(Number.isInteger(status) && status >= 400 && status <= 599, name);
      assert.ok(Number.isInteger(code) && code < 0, name);
      assert.ok(when.length > 0, name);
    }
    assert.deepEqual(NAMES.filter((n) => GATEWAY_ERRORS[n].status >= 500).sort(), ['internal', 'serviceFull', 'starting', 'upstreamBusy', 'upstreamFailed']);
  });

  it('makes every entry with a constructor (the listener and access refusals by kind, upstream failures as UpstreamError)', () => {
    const made_ = new Set<GatewayErrorName>();
    for (const name of Object.keys(rpcErrors) as (keyof typeof rpcErrors)[]) {
      const err = made(name);
      assert.ok(err instanceof RpcError, name);
      assert.deepEqual([err.status, err.code], [GATEWAY_ERRORS[err.refusal].status, GATEWAY_ERRORS[err.refusal].code], name);
      made_.add(err.refusal);
    }
    for (const kind of Object.keys(LISTENER_REFUSALS) as (keyof typeof LISTENER_REFUSALS)[]) {
      const err = listenerRefusal(kind, 'why');
      assert.equal(err.refusal, LISTENER_REFUSALS[kind], kind);
      made_.add(err.refusal);
    }
    assert.deepEqual(
      (['malformedRequest', 'requestTimeout', 'headersTooLarge', 'noWebSocketEndpoint'] as const).map((kind) => listenerRefusal(kind, 'why').status),
      [400, 408, 431, 404],
    );
    made_.add(new UpstreamError('timeout', 'u1', 'timed out').refusal);
    made_.add(new UpstreamError('busy', 'u1', 'is busy (HTTP 429)', 429).refusal);
    for (const kind of Object.keys(ACCESS_REFUSALS) as (keyof typeof ACCESS_REFUSALS)[]) {
      const err = fromRefusal(new AccessRefusal(kind, 'refused', kind === 'rateLimited' ? 3 : undefined));
      assert.equal(err.refusal, ACCESS_REFUSALS[kind]);
      made_.add(err.refusal);
    }
    assert.deepEqual(fromRefusal(new AccessRefusal('rateLimited', 'spent', 3)).toObject(), { code: -32005, message: 'spent', data: { retryAfterSeconds: 3 } });
    assert.deepEqual([...made_].sort(), [...NAMES].sort());
    assert.deepEqual([made('handshakeRefused').status, made('handshakeRefused').headers], [405, { allow: 'GET' }]);
    assert.equal(rpcErrors.handshakeRefused('GET', 'no key').status, 400);
    assert.equal(asRpcError(new PayloadTooLargeError(16)).refusal, 'bodyTooLarge');
  });

  it('is the only maker of RpcErrors, and every entry is raised somewhere in the sources', () => {
    const files = [...sources(repoPath('src', 'gateway')), ...sources(repoPath('src', 'http'))].filter((p) => !p.endsWith(join('gateway', 'errors.ts')));
    const text = files.map((path) => readFileSync(path, 'utf8')).join('\n');
    assert.doesNotMatch(text, /new RpcError\(/, 'RpcErrors are made in errors.ts only');
    const raised = new Set<GatewayErrorName>([...Object.values(LISTENER_REFUSALS), ...Object.values(ACCESS_REFUSALS), 'upstreamFailed', 'upstreamBusy']);
    for (const name of Object.keys(rpcErrors) as (keyof typeof rpcErrors)[]) {
      if (new RegExp(`rpcErrors\\.${name}\\b`).test(text)) raised.add(made(name).refusal);
    }
    // errors.ts itself answers an oversized body and what it does not know.
    raised.add('bodyTooLarge').add('internal');
    assert.deepEqual(NAMES.filter((n) => !raised.has(n)), []);
  });

  it("is docs/gateway.md's status table: the same (status, code) pairs", () => {
    const doc = readFileSync(repoPath('docs', 'gateway.md'), 'utf8');
    const section = doc.split('## Status codes and errors')[1].split('\n## ')[0];
    const documented = new Set<string>();
    for (const match of section.matchAll(/^\| ([0-9, ]+) \| (-\d+) \|/gm)) {
      for (const status of match[1].split(',')) documented.add(`${status.trim()} ${match[2]}`);
    }
    const catalogued = new Set(NAMES.map((n) => `${GATEWAY_ERRORS[n].status} ${GATEWAY_ERRORS[n].code}`));
    assert.deepEqual([...documented].sort(), [...catalogued].sort());
  });
});
