/**
 * The `logs` subscription filter ({address, topics}) as a pure rule: checking what a client sent, and
 * whether a log matches it (as geth matches: any of the addresses; per topic position null matches
 * anything, a hash that hash, an array any of its hashes).
 */
import { rpcErrors, type RpcError } from '../errors.js';

export interface LogsFilter {
  addresses: Set<string> | undefined;
  topics: (Set<string> | null)[];
}

const HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function invalid(message: string): RpcError {
  return rpcErrors.invalidLogsFilter(message);
}

export function parseLogsFilter(raw: unknown): LogsFilter {
  if (raw === undefined || raw === null) return { addresses: undefined, topics: [] };
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid('expected an object {address, topics}');
  // A subscription has no block range: fromBlock/toBlock are ignored (as geth does); anything else is refused.
  const { address, topics, fromBlock: _from, toBlock: _to, ...rest } = raw as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw invalid(`unknown field ${unknown[0]}`);
  let addresses: Set<string> | undefined;
  if (address !== undefined && address !== null) {
    const list = Array.isArray(address) ? address : [address];
    if (!list.every((a) => typeof a === 'string' && ADDRESS.test(a))) throw invalid('address must be an address or a list of them');
    addresses = list.length === 0 ? undefined : new Set(list.map((a) => (a as string).toLowerCase()));
  }
  const positions: (Set<string> | null)[] = [];
  if (topics !== undefined && topics !== null) {
    if (!Array.isArray(topics) || topics.length > 4) throw invalid('topics must be a list of at most 4 entries');
    for (const t of topics) {
      if (t === null) positions.push(null);
      else if (typeof t === 'string' && HASH.test(t)) positions.push(new Set([t.toLowerCase()]));
      else if (Array.isArray(t) && t.every((x) => typeof x === 'string' && HASH.test(x))) {
        positions.push(t.length === 0 ? null : new Set(t.map((x: string) => x.toLowerCase())));
      } else throw invalid('each topic must be null, a 32-byte hash or a list of them');
    }
  }
  return { addresses, topics: positions };
}

export interface RawLog {
  address?: unknown;
  topics?: unknown;
  [key: string]: unknown;
}

export function matchesLog(filter: LogsFilter, log: RawLog): boolean {
  if (filter.addresses && !(typeof log.address === 'string' && filter.addresses.has(log.address.toLowerCase()))) return false;
  const topics = Array.isArray(log.topics) ? (log.topics as string[]) : [];
  for (let i = 0; i < filter.topics.length; i++) {
    const wanted = filter.topics[i];
    if (wanted === null) continue;
    const topic = topics[i];
    if (typeof topic !== 'string' || !wanted.has(topic.toLowerCase())) return false;
  }
  return true;
}
