/**
 * The access layer's settings as the one loader reads them: TRUST_PROXY's forms (addresses and ranges;
 * the older hop count, now for loopback proxies only; off), what it refuses, and the server bounds' one
 * rule the schema cannot say. The pure rules they feed (addresses.ts, hosts.ts) are checked here too.
 */
import assert from 'node:assert/strict';
import { loadConfig, ConfigError } from '../../src/wiring/config.js';
import { AddressSet, clientAddress, limitIdOf } from '../../src/access/addresses.js';
import { AllowedHosts, defaultAllowedHosts } from '../../src/access/hosts.js';

const load = (env: Record<string, string>) => loadConfig({ NETWORKS: 'mainnet', ...env });

describe('access: configuration and rules', () => {
  it('reads TRUST_PROXY as addresses and ranges, or the older hop count for loopback proxies only', () => {
    assert.deepEqual(load({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,fd00::/64' }).access, {
      ...load({}).access,
      trustedProxies: ['127.0.0.1', '10.0.0.0/8', 'fd00::/64'],
      proxyHops: 0,
    });
    for (const [raw, hops] of [['1', 1], ['on', 1], ['2', 2]] as const) {
      const { trustedProxies, proxyHops } = load({ TRUST_PROXY: raw }).access;
      assert.deepEqual([trustedProxies, proxyHops], [['127.0.0.0/8', '::1'], hops], raw);
    }
    for (const raw of ['off', '0']) assert.deepEqual(load({ TRUST_PROXY: raw }).access.trustedProxies, []);
    for (const raw of ['nginx', '10.0.0.0/33', '1.2.3.4/8/1']) assert.throws(() => load({ TRUST_PROXY: raw }), ConfigError, raw);
    assert.throws(() => load({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' }), /HEADERS_TIMEOUT_MS/);
    assert.throws(() => load({ OPERATOR_TOKEN: 'short' }), ConfigError, 'a token of fewer than 16 characters');
  });

  it('reads X-Forwarded-For from the right, only from trusted proxies, up to the hops when counted', () => {
    const proxies = new AddressSet(['127.0.0.1', '10.0.0.0/8']);
    assert.equal(clientAddress('198.51.100.7', '1.2.3.4', proxies, 0), '198.51.100.7', 'an untrusted peer: its header is ignored');
    assert.equal(clientAddress('127.0.0.1', '1.2.3.4, 203.0.113.9', proxies, 0), '203.0.113.9');
    assert.equal(clientAddress('127.0.0.1', '1.2.3.4, 203.0.113.9, 10.1.2.3', proxies, 0), '203.0.113.9', 'through two proxies');
    assert.equal(clientAddress('::ffff:127.0.0.1', '203.0.113.9', proxies, 0), '203.0.113.9', 'IPv4-mapped peer');
    assert.equal(clientAddress('127.0.0.1', 'garbage, 203.0.113.9', proxies, 0), '203.0.113.9');
    assert.equal(clientAddress('127.0.0.1', '203.0.113.9, not-an-address', proxies, 0), '127.0.0.1');
    assert.equal(clientAddress('127.0.0.1', '10.9.9.9, 10.1.2.3', proxies, 1), '10.1.2.3', 'one hop counted');
    assert.equal(limitIdOf('2001:db8:0:7::1'), limitIdOf('2001:db8:0:7:ffff:1:2:3'));
    assert.notEqual(limitIdOf('2001:db8:0:7::1'), limitIdOf('2001:db8:0:8::1'));
    assert.equal(limitIdOf('203.0.113.9'), '203.0.113.9');
  });

  it('matches Host values against ALLOWED_HOSTS without port, case or trailing dot', () => {
    const hosts = new AllowedHosts(defaultAllowedHosts('127.0.0.1'));
    for (const host of ['localhost', 'LOCALHOST:8080', 'mainnet.localhost', 'mainnet.localhost.', '127.0.0.1:8080', '[::1]:8080']) {
      assert.ok(hosts.allows(host), host);
    }
    for (const host of ['localhost.evil.test', 'evil.test', '127.0.0.2', '[::1', 'localhost:80:80', '']) assert.ok(!hosts.allows(host), host);
    const wild = new AllowedHosts(['*.example.com']);
    assert.ok(wild.allows('a.b.example.com:443'));
    assert.ok(!wild.allows('example.com') && !wild.allows('badexample.com'));
    assert.ok(new AllowedHosts(['*']).allows('anything.test'));
    assert.ok(new AllowedHosts(defaultAllowedHosts('10.0.0.5')).allows('10.0.0.5:8080'), 'the configured HOST');
  });
});
