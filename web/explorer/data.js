// The explorer's view of the order book, kept current from the event stream: the open orders (loaded once,
// then changed event by event), the newest events, and a version that components watch to re-render.
// Nothing here polls the order book; only the gateway page polls /status (the gateway has no event log).
import { useEffect, useState } from 'preact/hooks';
import { preload, tokensRead } from './tokens.js';

const API = '/api/v1';
const TAIL = 200;

// The operator's token (OPERATOR_TOKEN), for the pages that use operator routes (/status, replay): asked
// for when such a route answers 401, and kept for this tab only (sessionStorage), never sent elsewhere.
const TOKEN_KEY = 'ethgate.operatorToken';

export function setOperatorToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** Thrown by getJson for an operator route that answered 401: the page then asks for the token. */
export class NeedsToken extends Error {}

/** GET (or `init`) a JSON answer of the API; `operator`: an operator route, sent with the token if there is one. */
export async function getJson(path, init, operator = false) {
  const token = operator ? sessionStorage.getItem(TOKEN_KEY) : null;
  const headers = token ? { ...init?.headers, authorization: `Bearer ${token}` } : init?.headers;
  const res = await fetch(path.startsWith('/') ? path : `${API}/${path}`, { ...init, headers });
  const body = await res.json().catch(() => undefined);
  const message = body?.description ?? body?.error?.message ?? `${res.status} ${res.statusText}`;
  if (operator && res.status === 401) throw new NeedsToken(message);
  if (!res.ok) throw new Error(message);
  return body;
}

/**
 * A listing the API pages (GET /orders): each page's items, following the Link header's rel="next" until
 * there is none or `maxPages` pages were read.
 */
export async function getPages(path, maxPages = 20) {
  const items = [];
  let url = path.startsWith('/') ? path : `${API}/${path}`;
  for (let page = 0; url && page < maxPages; page++) {
    const res = await fetch(url);
    const body = await res.json().catch(() => undefined);
    if (!res.ok) throw new Error(body?.description ?? `${res.status} ${res.statusText}`);
    items.push(...body);
    url = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
  }
  return items;
}

/** An order as GET /orders gives it, from its OrderCreated event. */
function orderFromCreated(event) {
  const d = event.data;
  return {
    ...d,
    status: d.signingScheme === 'presign' ? 'presignaturePending' : 'open',
    executedSellAmount: '0',
    executedBuyAmount: '0',
    executedFeeAmount: '0',
    invalidated: false,
  };
}

const OPEN = new Set(['open', 'presignaturePending']);

class LiveBook {
  constructor() {
    /** uid -> order, for the open orders (and those that closed while the page was open). */
    this.orders = new Map();
    /** The newest events, oldest first. */
    this.events = [];
    /** uid -> the position of the last event of that order seen live. */
    this.touched = new Map();
    this.version = 0;
    this.position = 0;
    this.connected = false;
    this.loaded = false;
    /** Why the orders could not be loaded (the order book is off or down), if so. */
    this.error = undefined;
    this.listeners = new Set();
    this.pending = undefined;
    this.refreshing = new Set();
    this.backfilled = false;
  }

  start() {
    // The stream first (from now), the orders second: events of the gap are applied after the load.
    const early = [];
    this.connect((event) => (this.loaded ? this.apply(event) : early.push(event)));
    preload();
    getPages('orders?includeInsufficientBalance=true')
      .then((orders) => {
        for (const order of orders) this.orders.set(order.uid, order);
        // The first view shows the orders with their tokens' symbols and decimals.
        const tokens = new Set();
        for (const order of orders) tokens.add(order.sellToken).add(order.buyToken);
        return tokensRead([...tokens]);
      })
      .catch((err) => {
        this.error = err.message;
      })
      .finally(() => {
        this.loaded = true;
        for (const event of early.splice(0)) this.apply(event);
        this.changed();
      });
  }

  /**
   * Follows the event stream. EventSource reconnects by itself with Last-Event-ID after a dropped
   * connection; after an answer other than 200 (the order book starting, down or off) it gives up, so the
   * page opens a new one a little later, resuming after the last position it saw.
   */
  connect(onEvent) {
    const after = this.position > 0 ? `?after=${this.position}` : '';
    const source = new EventSource(`${API}/events/stream${after}`);
    source.onopen = () => {
      this.connected = true;
      this.changed();
    };
    source.onerror = () => {
      this.connected = false;
      this.changed();
      if (source.readyState === EventSource.CLOSED) setTimeout(() => this.connect(onEvent), 5000);
    };
    source.onmessage = (message) => onEvent(JSON.parse(message.data));
  }

  apply(event) {
    this.position = Math.max(this.position, event.position);
    this.events.push(event);
    if (this.events.length > TAIL) this.events.splice(0, this.events.length - TAIL);
    const uid = event.data?.uid;
    if (uid) {
      this.touched.set(uid, event.position);
      const known = this.orders.get(uid);
      if (event.type === 'OrderCreated') {
        if (!known) this.orders.set(uid, orderFromCreated(event));
      } else if (event.type === 'OrderCancelled' && known) {
        this.orders.set(uid, { ...known, status: 'cancelled' });
      } else {
        this.refresh(uid);
      }
    }
    this.changed();
  }

  /**
   * Puts the log's last events (up to `head`, the newest position it held when asked) before the live
   * ones, once: the event log page opens with them rather than with what arrives after it. They only fill
   * the tail; the open orders were loaded whole.
   */
  backfill(head) {
    if (this.backfilled || !(head > 0)) return;
    this.backfilled = true;
    const after = Math.max(0, head - TAIL);
    getJson(`events?after=${after}&limit=${TAIL}`)
      .then((events) => {
        const known = new Set(this.events.map((e) => e.position));
        const merged = [...events.filter((e) => !known.has(e.position)), ...this.events].sort((a, b) => a.position - b.position);
        this.events = merged.slice(-TAIL);
        this.changed();
      })
      .catch(() => {
        this.backfilled = false;
      });
  }

  /** Reads an order again after an event whose effect the page does not compute itself (a trade...). */
  refresh(uid) {
    if (this.refreshing.has(uid)) return;
    this.refreshing.add(uid);
    getJson(`orders/${uid}`)
      .then((order) => {
        this.orders.set(uid, order);
        this.changed();
      })
      .catch(() => undefined)
      .finally(() => this.refreshing.delete(uid));
  }

  /** The open orders still valid now (an order expires without any event). */
  openOrders() {
    const now = Date.now() / 1000;
    const open = [];
    for (const order of this.orders.values()) if (OPEN.has(order.status) && order.validTo >= now) open.push(order);
    return open;
  }

  /** Tells the watchers once per frame, however many events arrived. */
  changed() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => {
      this.pending = undefined;
      this.version++;
      for (const listener of this.listeners) listener(this.version);
    });
  }
}

export const book = new LiveBook();

/** Re-renders the calling component when the book changes; gives the book's version. */
export function useBook() {
  const [version, setVersion] = useState(book.version);
  useEffect(() => {
    book.listeners.add(setVersion);
    return () => book.listeners.delete(setVersion);
  }, []);
  return version;
}

/**
 * Loads `load()` when mounted, again whenever `key` changes (e.g. the last event of the order shown), and
 * gives {data, error}.
 */
export function useLoad(load, key) {
  const [state, setState] = useState({ data: undefined, error: undefined });
  useEffect(() => {
    let alive = true;
    load().then(
      (data) => alive && setState({ data, error: undefined }),
      (error) => alive && setState((s) => ({ data: s.data, error: error.message })),
    );
    return () => {
      alive = false;
    };
  }, [key]);
  return state;
}
