/**
 * The cap on long-lived connections (event streams, WebSockets) counts clients as the access layer does:
 * places per limitId and in all, each given back once; an IPv6 client by its /64, so that rotating the
 * addresses of one block holds no more streams.
 */
import assert from 'node:assert/strict';
import { ConnectionCap } from '../../src/access/connection-cap.js';
import { limitIdOf } from '../../src/access/addresses.js';

describe('connection cap', () => {
  it('counts places per client and in all, and gives each back once', () => {
    const cap = new ConnectionCap({ perClient: 2, total: 3 }, 'streams', { perClient: 'PER', total: 'TOTAL' });
    const a1 = cap.admit('a');
    const a2 = cap.admit('a');
    assert.ok(a1.admitted && a2.admitted);
    const a3 = cap.admit('a');
    assert.equal(a3.admitted, false);
    assert.equal(!a3.admitted && a3.scope, 'client');
    assert.ok(cap.admit('b').admitted);
    const c = cap.admit('c');
    assert.equal(!c.admitted && c.scope, 'total');
    assert.match(!c.admitted ? c.description : '', /\(3, TOTAL\)/);
    if (a1.admitted) {
      a1.release();
      a1.release();
    }
    assert.equal(cap.count(), 2);
    assert.equal(cap.count('a'), 1);
    assert.ok(cap.admit('c').admitted);
    assert.equal(cap.admit('d').admitted, false);
  });

  it('counts the addresses of one IPv6 /64 as one client, and the next /64 as another', () => {
    const cap = new ConnectionCap({ perClient: 2, total: 10 }, 'streams', { perClient: 'PER', total: 'TOTAL' });
    assert.ok(cap.admit(limitIdOf('2001:db8:1:2::a')).admitted);
    assert.ok(cap.admit(limitIdOf('2001:db8:1:2:ffff:ffff:ffff:ffff')).admitted);
    const third = cap.admit(limitIdOf('2001:db8:1:2::b'));
    assert.equal(!third.admitted && third.scope, 'client');
    assert.match(!third.admitted ? third.description : '', /at most 2 streams per client address \(PER\)/);
    assert.ok(cap.admit(limitIdOf('2001:db8:1:3::a')).admitted, 'another /64');
    assert.ok(cap.admit(limitIdOf('192.0.2.1')).admitted && cap.admit(limitIdOf('192.0.2.2')).admitted, 'IPv4 addresses one by one');
    assert.equal(cap.count(limitIdOf('2001:db8:1:2::c')), 2);
  });
});
