import { checkEndpointUrl, isPrivateAddress } from './endpoint-url';

describe('endpoint URL checks', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1',
    // Ranges the hand-written list missed: NAT64, 6to4, Teredo, IPv4-compatible, site-local,
    // documentation, benchmarking edge, broadcast, IPv4-mapped of a public address.
    '64:ff9b::7f00:1', '2002:7f00:1::1', '2001::1', '::127.0.0.1', 'fec0::1', '2001:db8::1',
    '192.0.2.1', '198.51.100.7', '203.0.113.9', '100.64.0.1', '255.255.255.255', '::ffff:8.8.8.8', 'not-an-ip'])(
    'treats %s as private',
    (ip) => expect(isPrivateAddress(ip)).toBe(true),
  );

  it.each(['8.8.8.8', '93.184.216.34', '2606:4700::1111'])('treats %s as public', (ip) =>
    expect(isPrivateAddress(ip)).toBe(false),
  );

  it('refuses private hosts unless allowed, and non-http URLs always', async () => {
    expect(await checkEndpointUrl('http://127.0.0.1:9000/hook', false)).toBe('private_address');
    expect(await checkEndpointUrl('http://localhost/hook', false)).toBe('private_address');
    expect(await checkEndpointUrl('http://[::1]/hook', false)).toBe('private_address');
    expect(await checkEndpointUrl('http://127.0.0.1:9000/hook', true)).toBeNull();
    expect(await checkEndpointUrl('https://8.8.8.8/hook', false)).toBeNull();
    expect(await checkEndpointUrl('http://[64:ff9b::a9fe:a9fe]/hook', false)).toBe('private_address');
    expect(await checkEndpointUrl('http://[2002:a9fe:a9fe::1]/hook', false)).toBe('private_address');
    expect(await checkEndpointUrl('http://192.0.2.10/hook', false)).toBe('private_address');
    expect(await checkEndpointUrl('ftp://example.com/x', true)).toBe('invalid_url');
    expect(await checkEndpointUrl('not a url', true)).toBe('invalid_url');
    expect(await checkEndpointUrl('https://user:pw@example.com/', true)).toBe('invalid_url');
  });
});
