/**
 * ALLOWED_HOSTS: which Host header values the service answers (as geth's --http.vhosts). A page on another
 * site cannot then reach a service bound to loopback or an inner network by pointing its own name at that
 * address (DNS rebinding): the browser sends the attacker's name as Host, and it is refused. Pure rules.
 *
 * A pattern is a host name or address without port ("localhost", "10.0.0.5", "[::1]" or "::1"), "*.suffix"
 * for every name under suffix (not suffix itself), or "*" for any host. The port of a Host header is
 * ignored; names compare without case and without a trailing dot.
 */

/** The patterns when ALLOWED_HOSTS is not set: the names of this machine as a browser on it writes them. */
export function defaultAllowedHosts(bindHost: string): string[] {
  const hosts = ['localhost', '*.localhost', '127.0.0.1', '::1'];
  if (bindHost && bindHost !== '0.0.0.0' && bindHost !== '::') hosts.push(bindHost);
  return hosts;
}

/** The host name of a Host header value: without port, brackets, case or trailing dot; undefined if malformed. */
export function hostName(host: string): string | undefined {
  let name: string;
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end === -1) return undefined;
    const rest = host.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return undefined;
    name = host.slice(1, end);
  } else {
    const colon = host.indexOf(':');
    if (colon !== -1 && !/^\d{1,5}$/.test(host.slice(colon + 1))) return undefined;
    name = colon === -1 ? host : host.slice(0, colon);
  }
  name = name.toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  return name === '' ? undefined : name;
}

function patternName(pattern: string): string {
  const name = pattern.trim().toLowerCase();
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  return bare.endsWith('.') ? bare.slice(0, -1) : bare;
}

/** The answer for each Host value seen, up to this many (clients choose Host values). */
const REMEMBERED = 1024;

export class AllowedHosts {
  readonly any: boolean;
  private readonly exact = new Set<string>();
  private readonly suffixes: string[] = [];
  private readonly seen = new Map<string, boolean>();

  constructor(patterns: readonly string[]) {
    this.any = patterns.includes('*');
    for (const pattern of patterns) {
      const name = patternName(pattern);
      if (name.startsWith('*.')) this.suffixes.push(name.slice(1));
      else this.exact.add(name);
    }
  }

  /** Whether a request with this Host header may be answered (one without Host is refused elsewhere). */
  allows(host: string | undefined): boolean {
    if (this.any || host === undefined) return true;
    let answer = this.seen.get(host);
    if (answer === undefined) {
      answer = this.decide(host);
      if (this.seen.size >= REMEMBERED) this.seen.clear();
      this.seen.set(host, answer);
    }
    return answer;
  }

  private decide(host: string): boolean {
    const name = hostName(host);
    if (name === undefined) return false;
    if (this.exact.has(name)) return true;
    return this.suffixes.some((suffix) => name.length > suffix.length && name.endsWith(suffix));
  }
}
