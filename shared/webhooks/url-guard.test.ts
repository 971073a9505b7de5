import { describe, expect, it } from 'vitest';
import { addressRefusal, assertDeliverableUrl, type LookupAll, pinnedLookup, UnsafeWebhookUrl } from './url-guard.ts';

/** A resolver that knows a few names, so that no test needs the network. */
function fakeDns(records: Record<string, readonly string[]>): LookupAll {
  return async (hostname) => {
    const found = records[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

const dns = fakeDns({
  'hooks.example.com': ['93.184.216.34'],
  'v6.example.com': ['2606:2800:220:1:248:1893:25c8:1946'],
  'dual.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'rebind.example.com': ['93.184.216.34', '10.0.0.7'],
  'metadata.example.com': ['169.254.169.254'],
  'ec2v6.example.com': ['fd00:ec2::254'],
  'mapped.example.com': ['::ffff:127.0.0.1'],
  'mapped-public.example.com': ['::ffff:93.184.216.34'],
  'private.example.com': ['192.168.1.20'],
  'empty.example.com': [],
});

const guard = (url: string, allowLoopbackHttp = false) => assertDeliverableUrl(url, { allowLoopbackHttp, lookup: dns });

async function refusal(url: string, allowLoopbackHttp = false): Promise<string> {
  try {
    await guard(url, allowLoopbackHttp);
  } catch (error) {
    expect(error).toBeInstanceOf(UnsafeWebhookUrl);
    return (error as Error).message;
  }
  throw new Error(`${url} was accepted`);
}

describe('assertDeliverableUrl', () => {
  it('accepts an https URL whose name resolves to a public address, and pins that address', async () => {
    const target = await guard('https://hooks.example.com/pricing?x=1');
    expect(target).toEqual({
      url: 'https://hooks.example.com/pricing?x=1',
      hostname: 'hooks.example.com',
      address: '93.184.216.34',
      family: 4,
      port: 443,
    });
  });

  it('accepts public IPv6 and keeps an explicit port', async () => {
    const target = await guard('https://v6.example.com:8443/in');
    expect(target).toMatchObject({ address: '2606:2800:220:1:248:1893:25c8:1946', family: 6, port: 8443 });
  });

  it('pins an IPv4-mapped public address as its IPv4 form', async () => {
    expect(await guard('https://mapped-public.example.com/')).toMatchObject({ address: '93.184.216.34', family: 4 });
  });

  it.each([
    ['http://hooks.example.com/', 'https://'],
    ['ftp://hooks.example.com/', 'https://'],
    ['javascript:alert(1)', 'https://'],
    ['file:///etc/passwd', 'https://'],
    ['not a url', 'not a valid'],
    ['', 'empty'],
    ['https://user:pw@hooks.example.com/', 'user name or password'],
    [`https://hooks.example.com/${'a'.repeat(2_100)}`, 'longer than 2048'],
  ])('refuses %s', async (url, reason) => {
    expect(await refusal(url)).toContain(reason);
  });

  it.each([
    ['https://127.0.0.1/', 'loopback'],
    ['https://127.8.9.10/', 'loopback'],
    ['https://localhost/', 'loopback name'],
    ['https://LOCALHOST./', 'loopback name'],
    ['https://api.localhost/', 'loopback name'],
    ['https://2130706433/', 'loopback'],
    ['https://0x7f000001/', 'loopback'],
    ['https://0x7f.1/', 'loopback'],
    ['https://017700000001/', 'loopback'],
    ['https://127.1/', 'loopback'],
    ['https://0.0.0.0/', 'this network'],
    ['https://0/', 'this network'],
    ['https://10.1.2.3/', 'private'],
    ['https://172.16.0.1/', 'private'],
    ['https://172.31.255.255/', 'private'],
    ['https://192.168.0.1/', 'private'],
    ['https://100.64.0.1/', 'carrier-grade NAT'],
    ['https://100.127.255.254/', 'carrier-grade NAT'],
    ['https://169.254.169.254/latest/meta-data/', 'link-local'],
    ['https://169.254.170.2/', 'link-local'],
    ['https://224.0.0.1/', 'multicast'],
    ['https://239.255.255.250/', 'multicast'],
    ['https://240.0.0.1/', 'reserved'],
    ['https://255.255.255.255/', 'reserved'],
    ['https://192.0.2.10/', 'documentation'],
    ['https://198.18.0.1/', 'benchmarking'],
    ['https://[::1]/', 'loopback'],
    ['https://[::]/', 'unspecified'],
    ['https://[::ffff:127.0.0.1]/', 'loopback (IPv4-mapped)'],
    ['https://[::ffff:169.254.169.254]/', 'link-local'],
    ['https://[::ffff:a00:1]/', 'private (IPv4-mapped)'],
    ['https://[::127.0.0.1]/', 'IPv4-compatible'],
    ['https://[fd00:ec2::254]/', 'unique-local'],
    ['https://[fc00::1]/', 'unique-local'],
    ['https://[fe80::1]/', 'link-local'],
    ['https://[ff02::1]/', 'multicast'],
    ['https://[64:ff9b::a00:1]/', 'NAT64'],
    ['https://[2001:db8::1]/', 'documentation'],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'IETF protocol'],
    ['https://[2002:7f00:1::1]/', '6to4'],
  ])('refuses %s as a non-public target', async (url, reason) => {
    expect(await refusal(url)).toContain(reason);
  });

  it.each([
    ['https://metadata.example.com/', 'link-local'],
    ['https://ec2v6.example.com/', 'unique-local'],
    ['https://mapped.example.com/', 'loopback'],
    ['https://private.example.com/', 'private'],
  ])('refuses %s, a public-looking name that resolves to a non-public address', async (url, reason) => {
    expect(await refusal(url)).toContain(reason);
  });

  it('refuses a name when any one of its addresses is not public, as DNS rebinding would use', async () => {
    expect(await refusal('https://rebind.example.com/')).toContain('10.0.0.7');
  });

  it('checks every address of a dual-stack name and pins the first', async () => {
    expect(await guard('https://dual.example.com/')).toMatchObject({ address: '93.184.216.34', family: 4 });
  });

  it('refuses names that do not resolve, or resolve to nothing', async () => {
    expect(await refusal('https://nowhere.example.com/')).toContain('does not resolve');
    expect(await refusal('https://empty.example.com/')).toContain('does not resolve');
  });

  it('allows http to 127.0.0.1 and localhost only behind the local-mode flag, pinned to 127.0.0.1', async () => {
    expect(await refusal('http://127.0.0.1:9000/hook')).toContain('https://');
    expect(await guard('http://127.0.0.1:9000/hook', true)).toMatchObject({ address: '127.0.0.1', port: 9000 });
    expect(await guard('http://localhost:9000/hook', true)).toMatchObject({ address: '127.0.0.1', hostname: 'localhost' });
  });

  it('keeps refusing every other non-public target with the local-mode flag on', async () => {
    expect(await refusal('http://10.0.0.1/', true)).toContain('https://');
    expect(await refusal('http://[::1]:9000/', true)).toContain('https://');
    expect(await refusal('https://127.0.0.1/', true)).toContain('loopback');
    expect(await refusal('http://2130706433/', true)).toContain('https://');
    expect(await refusal('https://metadata.example.com/', true)).toContain('link-local');
  });
});

describe('addressRefusal', () => {
  it('finds nothing to refuse in public addresses', () => {
    for (const address of ['8.8.8.8', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect(addressRefusal(address)).toBeUndefined();
    }
  });
});

describe('pinnedLookup', () => {
  it('answers the checked address whatever name it is asked for', async () => {
    const lookup = pinnedLookup({ url: 'https://a.example/', hostname: 'a.example', address: '93.184.216.34', family: 4, port: 443 });
    const single = await new Promise((resolve) => lookup('a.example', {}, (_error, address, family) => resolve({ address, family })));
    expect(single).toEqual({ address: '93.184.216.34', family: 4 });
    const all = await new Promise((resolve) => lookup('a.example', { all: true }, (_error, addresses) => resolve(addresses)));
    expect(all).toEqual([{ address: '93.184.216.34', family: 4 }]);
  });
});
