/**
 * Who a request comes from, as pure rules on addresses: which peers are trusted proxies (TRUST_PROXY, by
 * address or CIDR range), the client's address read from X-Forwarded-For through them, the bucket a client
 * is counted in (an IPv6 client by its /64, the block one subscriber usually holds), and whether an address
 * is loopback. No I/O here.
 */
import { BlockList, isIP } from 'node:net';

const V4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** An address as compared here: IPv4-mapped IPv6 (::ffff:1.2.3.4, from dual-stack sockets) as IPv4, lowercase. */
export function normalizeAddress(address: string): string {
  const mapped = V4_MAPPED.exec(address);
  return mapped ? mapped[1] : address.toLowerCase();
}

/** Whether `entry` is an IP address or a CIDR range (TRUST_PROXY's entries). */
export function isAddressOrRange(entry: string): boolean {
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/** The set of trusted proxies; `has` answers for any address string (false for what is not an address). */
export class AddressSet {
  private readonly list = new BlockList();
  readonly empty: boolean;

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [address, bits] = entry.split('/');
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.list.addAddress(normalizeAddress(address), family);
      else this.list.addSubnet(normalizeAddress(address), Number(bits), family);
    }
    this.empty = entries.length === 0;
  }

  has(address: string): boolean {
    if (this.empty) return false;
    const normalized = normalizeAddress(address);
    const family = isIP(normalized);
    if (family === 0) return false;
    return this.list.check(normalized, family === 6 ? 'ipv6' : 'ipv4');
  }
}

/** The entries of X-Forwarded-For headers, left to right. */
function forwardedEntries(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const joined = Array.isArray(header) ? header.join(',') : header;
  const entries: string[] = [];
  for (const part of joined.split(',')) {
    const entry = part.trim();
    if (entry) entries.push(entry);
  }
  return entries;
}

/**
 * The client's address: the peer, unless the peer is a trusted proxy; then X-Forwarded-For is read from the
 * right, each entry written by the proxy before it, until an entry that is not a trusted proxy (that is the
 * client), or `hops` entries when hops > 0. What lies further left was written by the client itself and is
 * never read. An entry that is not an address ends the walk at the last address read.
 */
export function clientAddress(peer: string, forwardedFor: string | string[] | undefined, proxies: AddressSet, hops: number): string {
  const address = normalizeAddress(peer);
  if (!proxies.has(address)) return address;
  const entries = forwardedEntries(forwardedFor);
  let client = address;
  for (let i = entries.length - 1, read = 1; i >= 0; i--, read++) {
    const entry = normalizeAddress(entries[i]);
    if (isIP(entry) === 0) return client;
    client = entry;
    if ((hops > 0 && read >= hops) || !proxies.has(entry)) return client;
  }
  return client;
}

/**
 * The id a client is counted under by the rate limits: an IPv4 address as it is, an IPv6 address by its
 * first 64 bits (an ISP hands a subscriber a /64 or more, so one client has 2^64 addresses to rotate).
 */
export function limitIdOf(address: string): string {
  if (isIP(address) !== 6) return address;
  return ipv6Prefix64(address);
}

/** The first four groups of an IPv6 address, expanded ("2001:db8:0:1::/64"). */
function ipv6Prefix64(address: string): string {
  const bare = address.split('%')[0];
  const [head, tail] = bare.split('::');
  const headGroups = head ? head.split(':') : [];
  let groups: string[];
  if (tail === undefined) {
    groups = headGroups;
  } else {
    const tailGroups = tail ? tail.split(':') : [];
    // An embedded IPv4 tail counts for two groups; it lies in the last 64 bits anyway.
    const tailCount = tailGroups.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
    groups = [...headGroups, ...Array<string>(Math.max(0, 8 - headGroups.length - tailCount)).fill('0'), ...tailGroups];
  }
  return `${groups.slice(0, 4).map((g) => (parseInt(g, 16) || 0).toString(16)).join(':')}::/64`;
}

const LOOPBACK = new AddressSet(['127.0.0.0/8', '::1']);

/** Whether an address is loopback (127.0.0.0/8, ::1, or IPv4-mapped loopback). */
export function isLoopback(address: string): boolean {
  return LOOPBACK.has(address);
}
