/** The default address policy: public unicast only, however an address is written. */
import { describe, expect, it } from 'vitest';
import { nonPublicReason } from '../src/network/address.js';

const isPublicAddress = (address: string) => nonPublicReason(address) === null;

describe('nonPublicReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['ff02::1', 'multicast'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
  });

  it.each([
    ['::ffff:127.0.0.1', /^loopback \(ipv4Mapped form of 127\.0\.0\.1\)$/],
    ['::ffff:7f00:1', /^loopback/],
    ['::ffff:169.254.169.254', /^linkLocal/],
    ['64:ff9b::7f00:1', /^loopback \(rfc6052 form of 127\.0\.0\.1\)$/],
    ['64:ff9b::a9fe:a9fe', /^linkLocal .*169\.254\.169\.254/],
    ['2002:7f00:1::', /^loopback \(6to4 form of 127\.0\.0\.1\)$/],
    ['2002:c0a8:101::1', /^private .*192\.168\.1\.1/],
    ['::7f00:1', /^loopback .*127\.0\.0\.1/],
    ['::a9fe:a9fe', /^linkLocal .*169\.254\.169\.254/],
  ])('refuses the IPv4-carrying IPv6 form %s', (address, reason) => {
    expect(nonPublicReason(address)).toMatch(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each(['2001::1', '2001:db8::1', '64:ff9b:1::1', '192.0.2.1', '198.18.0.1'])(
    'refuses the special-purpose address %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(false);
    },
  );

  it('refuses what is not an address at all', () => {
    expect(nonPublicReason('example.com')).toBe('not an IP address');
  });
});
