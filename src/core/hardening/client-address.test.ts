import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientNetworkOf } from './client-address.ts';

describe('a client address as the rate limiter counts it', () => {
  it('keys an IPv4 address as is', () => {
    assert.equal(clientNetworkOf('192.0.2.1'), '192.0.2.1');
  });

  it('keys an IPv6 address by its /64, in one form whatever the spelling', () => {
    const key = clientNetworkOf('2001:db8:1:2::1');
    assert.equal(key, '2001:db8:1:2::/64');
    assert.equal(clientNetworkOf('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff'), key);
    assert.equal(clientNetworkOf('2001:db8:1:2:0:0:0:0'), key);
    assert.notEqual(clientNetworkOf('2001:db8:1:3::1'), key);
    assert.equal(clientNetworkOf('::1'), '0:0:0:0::/64');
    assert.equal(clientNetworkOf('fe80::1%eth0'), 'fe80:0:0:0::/64');
  });

  it('keys an IPv4-mapped IPv6 address as the IPv4 address', () => {
    assert.equal(clientNetworkOf('::ffff:192.0.2.1'), '192.0.2.1');
    assert.equal(clientNetworkOf('::ffff:c000:201'), '192.0.2.1');
  });
});
