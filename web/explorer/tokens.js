// Token symbols and decimals, read from the tokens themselves (ERC-20 symbol() and decimals()) through the
// service's own JSON-RPC gateway, on the network the order book runs on, as any dapp reads them. They never
// change, so each token is read once per page load and kept in memory here: the service holds nothing more
// for it, and its gateway's limits and cache apply to these calls like to any client's.
import { useEffect, useState } from 'preact/hooks';
import { short } from './format.js';

const SYMBOL = '0x95d89b41'; // symbol()
const DECIMALS = '0x313ce567'; // decimals()

/** address -> {symbol, decimals, known}; `known` false when the token did not answer (its atoms are shown). */
const tokens = new Map();
const loading = new Map();
const listeners = new Set();
let version = 0;
let networkPath;
let pending;

async function json(path, init) {
  const res = await fetch(path, init);
  const body = await res.json().catch(() => undefined);
  if (!res.ok) throw new Error(body?.description ?? body?.error?.message ?? `${res.status}`);
  return body;
}

/** The gateway path of the order book's network: the network whose chain id the order book's domain names. */
function network() {
  networkPath ??= Promise.all([json('/api/v1/domain'), json('/status')]).then(([domain, status]) => {
    const name = Object.entries(status.networks ?? {}).find(([, n]) => n.chainId === domain.chainId)?.[0];
    if (!name) throw new Error(`no network of chain ${domain.chainId}`);
    return `/v1/jsonrpc/${encodeURIComponent(name)}`;
  });
  // Not known yet (the order book starting...): asked again by the next token read.
  networkPath.catch(() => (networkPath = undefined));
  return networkPath;
}

async function ethCall(path, to, data) {
  const body = await json(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to, data }, 'latest'] }),
  });
  if (typeof body?.result !== 'string') throw new Error('no result');
  return body.result;
}

/** An ABI-encoded `string` return value, or a `bytes32` one (older tokens such as MKR). */
export function decodeSymbol(hex) {
  const bytes = hex.replace(/^0x/, '');
  const utf8 = (h) => new TextDecoder().decode(new Uint8Array(h.match(/../g)?.map((b) => parseInt(b, 16)) ?? []));
  if (bytes.length === 64) return utf8(bytes.replace(/(00)+$/, ''));
  const offset = Number(BigInt('0x' + bytes.slice(0, 64))) * 2;
  const length = Number(BigInt('0x' + bytes.slice(offset, offset + 64)));
  if (!Number.isSafeInteger(length) || length > 64) throw new Error('not a symbol');
  return utf8(bytes.slice(offset + 64, offset + 64 + length * 2));
}

/** Tells the watchers once per frame, however many tokens arrived. */
function changed() {
  if (pending) return;
  pending = requestAnimationFrame(() => {
    pending = undefined;
    version++;
    for (const listener of listeners) listener(version);
  });
}

async function load(address) {
  let path;
  try {
    path = await network();
  } catch {
    loading.delete(address);
    return;
  }
  try {
    const [symbol, decimals] = await Promise.all([ethCall(path, address, SYMBOL), ethCall(path, address, DECIMALS)]);
    const d = Number(BigInt(decimals));
    if (!Number.isSafeInteger(d) || d > 77) throw new Error('not decimals');
    tokens.set(address, { symbol: decodeSymbol(symbol) || short(address, 4), decimals: d, known: true });
  } catch {
    tokens.set(address, { symbol: short(address, 4), decimals: 0, known: false });
  }
  changed();
}

/** Starts finding the network the tokens are read on (with the page's first requests). */
export function preload() {
  network().catch(() => undefined);
}

/**
 * Resolves once the tokens of `addresses` are read (or could not be), at most `timeoutMs` later: the
 * explorer renders its first view with the symbols and decimals rather than re-render it as they arrive.
 */
export function tokensRead(addresses, timeoutMs = 2000) {
  for (const a of addresses) token(a);
  const reads = [...new Set(addresses.map((a) => a.toLowerCase()))].map((a) => loading.get(a)).filter(Boolean);
  return Promise.race([Promise.all(reads), new Promise((resolve) => setTimeout(resolve, timeoutMs))]);
}

/** The token's symbol and decimals if read already; starts reading them otherwise. */
export function token(address) {
  if (!address) return undefined;
  const a = address.toLowerCase();
  const known = tokens.get(a);
  if (known) return known;
  if (!loading.has(a)) loading.set(a, load(a));
  return undefined;
}

/** Re-renders the calling component when a token's details arrive. */
export function useTokens() {
  const [, setVersion] = useState(version);
  useEffect(() => {
    listeners.add(setVersion);
    return () => listeners.delete(setVersion);
  }, []);
  return version;
}
