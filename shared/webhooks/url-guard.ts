// Which webhook URLs the service may send to: https to public addresses only, checked on the addresses the name resolves to, and pinned.
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { isIPv4, isIPv6 } from 'node:net';

/** Longer URLs are refused; browsers and proxies commonly stop near 2,000 characters too. */
export const MAX_WEBHOOK_URL_LENGTH = 2_048;

/** getaddrinfo may hang on a slow resolver; a name that does not resolve in this long is refused. */
const LOOKUP_TIMEOUT_MS = 3_000;

/** Where a message goes: the URL as checked, and the one address the sender must connect to. */
export interface ResolvedTarget {
  /** The URL normalised by the WHATWG parser (what was checked). */
  readonly url: string;
  /** The host name for the Host header and TLS SNI (brackets removed from an IPv6 literal). */
  readonly hostname: string;
  /** The address checked; connect to this one, never to a fresh resolution of the name. */
  readonly address: string;
  readonly family: 4 | 6;
  readonly port: number;
}

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Every address a name resolves to (A and AAAA); tests inject their own so they need no network. */
export type LookupAll = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface UrlGuardOptions {
  /** Local mode only: allow `http://127.0.0.1` and `http://localhost` (and nothing else that is not public). */
  readonly allowLoopbackHttp: boolean;
  readonly lookup?: LookupAll;
}

/** A URL the service refuses to send to; the message says why, and never echoes more of the URL than its host. */
export class UnsafeWebhookUrl extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeWebhookUrl';
  }
}

/** The loopback exception is an explicit switch of local mode, read from the environment lib/local sets. */
export const allowLoopbackEnvironmentName = 'WEBHOOKS_ALLOW_LOOPBACK_HTTP';

export function loopbackHttpAllowed(): boolean {
  return process.env[allowLoopbackEnvironmentName] === '1';
}

/** Spelled out as written, so that `http://2130706433` and the like stay refused even with the flag on. */
const LOOPBACK_HTTP_URL = /^http:\/\/(127\.0\.0\.1|localhost)(:\d{1,5})?([/?#]|$)/i;

async function systemLookup(hostname: string): Promise<readonly ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UnsafeWebhookUrl(`the host ${hostname} did not resolve in time`)), LOOKUP_TIMEOUT_MS);
  });
  try {
    const found = await Promise.race([dnsLookup(hostname, { all: true, verbatim: true }), timeout]);
    return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Checks a URL the service is about to register or send to, and returns the address to connect to. Every address the
 * name resolves to must be public: one private answer among public ones is how DNS rebinding gets in. The sender
 * connects to the returned address (see `pinnedLookup`), so a second resolution can never point it elsewhere.
 */
export async function assertDeliverableUrl(rawUrl: string, options: UrlGuardOptions): Promise<ResolvedTarget> {
  if (typeof rawUrl !== 'string' || rawUrl.length === 0) throw new UnsafeWebhookUrl('the URL is empty');
  if (rawUrl.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new UnsafeWebhookUrl(`the URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new UnsafeWebhookUrl('the URL is not a valid absolute URL');
  }
  if (url.username !== '' || url.password !== '') throw new UnsafeWebhookUrl('the URL must not carry a user name or password');
  // The WHATWG parser has already turned decimal, hex and octal IPv4 forms (http://2130706433) into dotted quads.
  const hostname = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  const port = url.port === '' ? (url.protocol === 'http:' ? 80 : 443) : Number(url.port);

  if (options.allowLoopbackHttp && LOOPBACK_HTTP_URL.test(rawUrl)) {
    // Local receivers only: localhost is pinned to 127.0.0.1 without asking a resolver.
    return { url: url.href, hostname, address: '127.0.0.1', family: 4, port };
  }
  if (url.protocol !== 'https:') throw new UnsafeWebhookUrl('the URL must use https://');
  if (hostname === '') throw new UnsafeWebhookUrl('the URL has no host');
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
    throw new UnsafeWebhookUrl(`the host ${hostname} is a loopback name`);
  }

  let addresses: readonly ResolvedAddress[];
  if (isIPv4(hostname)) addresses = [{ address: hostname, family: 4 }];
  else if (isIPv6(hostname)) addresses = [{ address: hostname, family: 6 }];
  else {
    try {
      addresses = await (options.lookup ?? systemLookup)(hostname);
    } catch (error) {
      if (error instanceof UnsafeWebhookUrl) throw error;
      throw new UnsafeWebhookUrl(`the host ${hostname} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new UnsafeWebhookUrl(`the host ${hostname} does not resolve`);
  let pinned: ResolvedAddress | undefined;
  for (const candidate of addresses) {
    const refusal = addressRefusal(candidate.address);
    if (refusal) throw new UnsafeWebhookUrl(`the host ${hostname} resolves to ${refusal} address ${candidate.address}`);
    pinned ??= publicForm(candidate);
  }
  if (!pinned) throw new UnsafeWebhookUrl(`the host ${hostname} does not resolve`);
  return { url: url.href, hostname, address: pinned.address, family: pinned.family, port };
}

/** An IPv4-mapped IPv6 address is connected to as its IPv4 address. */
function publicForm(candidate: ResolvedAddress): ResolvedAddress {
  const mapped = candidate.family === 6 ? mappedIPv4(candidate.address) : undefined;
  return mapped ? { address: mapped, family: 4 } : candidate;
}

/**
 * A `lookup` for `http.request` / `https.request` that answers the checked address only: the socket goes where the
 * guard looked, while the Host header and TLS SNI keep the name.
 */
export function pinnedLookup(target: ResolvedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
      return;
    }
    callback(null, target.address, target.family);
  };
}

// ---- Address classes -------------------------------------------------------------------------------------------

interface Cidr {
  readonly base: bigint;
  readonly bits: number;
  readonly label: string;
}

function cidr4(text: string, label: string): Cidr {
  const [address, bits] = text.split('/');
  return { base: ipv4Value(address as string), bits: Number(bits), label };
}

function cidr6(text: string, label: string): Cidr {
  const [address, bits] = text.split('/');
  return { base: ipv6Value(address as string) as bigint, bits: Number(bits), label };
}

/** IANA's special-purpose IPv4 ranges that are not globally reachable, and multicast and reserved space. */
const refusedIPv4: readonly Cidr[] = [
  cidr4('0.0.0.0/8', 'a "this network"'),
  cidr4('10.0.0.0/8', 'a private'),
  cidr4('100.64.0.0/10', 'a carrier-grade NAT'),
  cidr4('127.0.0.0/8', 'a loopback'),
  cidr4('169.254.0.0/16', 'a link-local (cloud metadata)'),
  cidr4('172.16.0.0/12', 'a private'),
  cidr4('192.0.0.0/24', 'an IETF protocol'),
  cidr4('192.0.2.0/24', 'a documentation'),
  cidr4('192.88.99.0/24', 'a 6to4 relay'),
  cidr4('192.168.0.0/16', 'a private'),
  cidr4('198.18.0.0/15', 'a benchmarking'),
  cidr4('198.51.100.0/24', 'a documentation'),
  cidr4('203.0.113.0/24', 'a documentation'),
  cidr4('224.0.0.0/4', 'a multicast'),
  cidr4('240.0.0.0/4', 'a reserved'),
];

/**
 * Inside global unicast (2000::/3, the only IPv6 space accepted), the parts that are not public: protocol
 * assignments (Teredo among them), documentation, and 6to4, which tunnels to any IPv4 address.
 */
const refusedGlobalIPv6: readonly Cidr[] = [
  cidr6('2001::/23', 'an IETF protocol'),
  cidr6('2001:db8::/32', 'a documentation'),
  cidr6('2002::/16', 'a 6to4'),
  cidr6('3fff::/20', 'a documentation'),
];

const globalUnicastIPv6 = cidr6('2000::/3', 'global unicast');
const mappedPrefix = cidr6('::ffff:0:0/96', 'IPv4-mapped');

/** Names of the IPv6 classes outside global unicast, for clear refusals. */
const namedIPv6: readonly Cidr[] = [
  cidr6('::1/128', 'a loopback'),
  cidr6('::/128', 'an unspecified'),
  cidr6('::/96', 'an IPv4-compatible'),
  cidr6('64:ff9b::/96', 'a NAT64'),
  cidr6('64:ff9b:1::/48', 'a NAT64'),
  cidr6('100::/64', 'a discard'),
  cidr6('fc00::/7', 'a unique-local (fd00:ec2::254 is the EC2 metadata service)'),
  cidr6('fe80::/10', 'a link-local'),
  cidr6('fec0::/10', 'a site-local'),
  cidr6('ff00::/8', 'a multicast'),
];

function contains(range: Cidr, value: bigint, width: number): boolean {
  const shift = BigInt(width - range.bits);
  return value >> shift === range.base >> shift;
}

/** Why the address is refused, as "a private" etc., or undefined when it is a public address. */
export function addressRefusal(address: string): string | undefined {
  const bare = address.replace(/%.*$/, '');
  if (isIPv4(bare)) {
    const value = ipv4Value(bare);
    return refusedIPv4.find((range) => contains(range, value, 32))?.label ?? (bare === '255.255.255.255' ? 'a broadcast' : undefined);
  }
  const value = ipv6Value(bare);
  if (value === undefined) return 'an unreadable';
  if (contains(mappedPrefix, value, 128)) {
    const inner = addressRefusal(ipv4Text(value & 0xffffffffn));
    return inner ? `${inner} (IPv4-mapped)` : undefined;
  }
  if (contains(globalUnicastIPv6, value, 128)) return refusedGlobalIPv6.find((range) => contains(range, value, 128))?.label;
  return namedIPv6.find((range) => contains(range, value, 128))?.label ?? 'a reserved';
}

/** The IPv4 address an IPv4-mapped IPv6 address stands for. */
function mappedIPv4(address: string): string | undefined {
  const value = ipv6Value(address.replace(/%.*$/, ''));
  return value !== undefined && contains(mappedPrefix, value, 128) ? ipv4Text(value & 0xffffffffn) : undefined;
}

function ipv4Value(address: string): bigint {
  return address.split('.').reduce((total, octet) => (total << 8n) | BigInt(Number(octet)), 0n);
}

function ipv4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

/** 128 bits of an IPv6 address in any of its textual forms (`::`, a trailing dotted quad), or undefined. */
function ipv6Value(address: string): bigint | undefined {
  if (!isIPv6(address)) return undefined;
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4Value(dotted[1] as string);
    text = `${text.slice(0, dotted.index)}${((v4 >> 16n) & 0xffffn).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups];
  if (groups.length !== 8) return undefined;
  return groups.reduce((total, group) => (total << 16n) | BigInt(parseInt(group, 16)), 0n);
}
