// The explorer's pages, one component each; app.js routes to them by the URL's hash.
import { html } from './html.js';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { book, getJson, getPages, NeedsToken, setOperatorToken, useBook, useLoad } from './data.js';
import { DepthChart } from './depth-chart.js';
import { amount, ownerOfUid, price, ratio, short, time } from './format.js';
import { token, useTokens } from './tokens.js';

const ROWS = 200;

const Addr = ({ a }) => html`<a class="mono" href=${`#/owner/${a}`} title=${a}>${short(a)}</a>`;
const Uid = ({ uid }) => html`<a class="mono" href=${`#/order/${uid}`} title=${uid}>${short(uid, 8)}</a>`;
const Status = ({ s }) => html`<span class=${`status ${s}`} data-testid="order-status">${s}</span>`;
const Tx = ({ hash }) => html`<span class="mono" title=${hash} data-testid="trade-tx">${hash}</span>`;
const Failed = ({ error }) => (error ? html`<p class="bad">${error}</p>` : null);

/** A token by its symbol (read from the token), its address in the title. */
function Token({ a }) {
  useTokens();
  return html`<span class="token" title=${a}>${token(a)?.symbol ?? short(a, 4)}</span>`;
}

/** An amount of a token in its units with its symbol ("10.5 TKC"), the atoms in the title. */
function Amount({ raw, t }) {
  useTokens();
  if (raw === undefined || raw === null) return '';
  const info = token(t);
  if (!info) return html`<span class="amount muted" title=${`${raw} atoms of ${t}`}>…</span>`;
  return html`<span class="amount" data-testid="amount" title=${`${raw} atoms of ${t}`}>${amount(raw, info.decimals)} <span class="symbol">${info.symbol}</span></span>`;
}

/** The decimals of a token once read (0 before: prices are shown only when both are known). */
const decimalsOf = (a) => token(a)?.decimals;

/** Asks for the operator's token (kept for this tab only), then calls `done` to try again. */
function TokenForm({ why, done }) {
  const [token, setToken] = useState('');
  const submit = (e) => {
    e.preventDefault();
    setOperatorToken(token.trim());
    done();
  };
  return html`<form class="card" onSubmit=${submit} data-testid="token-form">
    <p>${why}</p>
    <label>Operator token <input type="password" autocomplete="off" value=${token} onInput=${(e) => setToken(e.target.value)} data-testid="token-input" /></label>
    ${' '}<button type="submit" data-testid="token-submit">Use for this tab</button>
  </form>`;
}

/** The unordered pair of an order's tokens, base first (the lower address). */
function marketOf(order) {
  const a = order.sellToken.toLowerCase();
  const b = order.buyToken.toLowerCase();
  return a < b ? [a, b] : [b, a];
}

export function Markets({ base, quote }) {
  const version = useBook();
  const tokensVersion = useTokens();
  const markets = useMemo(() => {
    const byPair = new Map();
    for (const order of book.openOrders()) {
      const [x, y] = marketOf(order);
      const key = `${x}/${y}`;
      let m = byPair.get(key);
      if (!m) byPair.set(key, (m = { base: x, quote: y, orders: [], asks: 0, bids: 0 }));
      m.orders.push(order);
      if (order.sellToken.toLowerCase() === x) m.asks++;
      else m.bids++;
    }
    return [...byPair.values()].sort((a, b) => b.orders.length - a.orders.length);
  }, [version]);
  const selected = markets.find((m) => m.base === base && m.quote === quote) ?? (base ? undefined : markets[0]);
  const baseDecimals = selected && decimalsOf(selected.base);
  const quoteDecimals = selected && decimalsOf(selected.quote);
  const priced = baseDecimals !== undefined && quoteDecimals !== undefined;
  // Prices in quote units per base unit.
  const rows = useMemo(() => {
    if (!selected) return [];
    const [bd, qd] = [baseDecimals ?? 0, quoteDecimals ?? 0];
    const withPrice = selected.orders.map((o) => {
      const ask = o.sellToken.toLowerCase() === selected.base;
      return { o, ask, p: ask ? ratio(o.buyAmount, o.sellAmount, qd, bd) : ratio(o.sellAmount, o.buyAmount, qd, bd) };
    });
    return withPrice.sort((a, b) => a.p - b.p);
  }, [selected, version, tokensVersion]);
  const pairName = (m) => html`<${Token} a=${m.base} /> / <${Token} a=${m.quote} />`;
  return html`
    <h1>Markets</h1>
    ${!book.loaded && html`<p class="muted">Loading the open orders…</p>`}
    ${book.error && html`<p class="bad">The order book cannot be read: ${book.error}</p>`}
    ${book.loaded && !book.error && markets.length === 0 && html`<p class="muted" data-testid="no-markets">No open orders.</p>`}
    <div class="grid">
      <table data-testid="markets">
        <thead><tr><th>market (base / quote)</th><th class="num">asks</th><th class="num">bids</th></tr></thead>
        <tbody>
          ${markets.map(
            (m) => html`<tr class=${m === selected ? 'selected' : ''} key=${m.base + m.quote}>
              <td><a href=${`#/markets/${m.base}/${m.quote}`} data-testid="market-link">${pairName(m)}</a></td>
              <td class="num">${m.asks}</td><td class="num">${m.bids}</td></tr>`,
          )}
        </tbody>
      </table>
      <div>
        ${selected
          ? html`<h2>Depth of ${pairName(selected)}</h2>
              ${priced
                ? html`<${DepthChart} key=${selected.base + selected.quote} base=${token(selected.base)} quote=${token(selected.quote)}
                    baseAddress=${selected.base} quoteAddress=${selected.quote} orders=${selected.orders} version=${version} />`
                : html`<p class="muted">Reading the tokens…</p>`}
              <h2>Open orders (${rows.length}${rows.length > ROWS ? `, first ${ROWS} by price` : ''})</h2>
              <table data-testid="market-orders">
                <thead><tr><th>order</th><th>side</th><th class="num">limit price (<${Token} a=${selected.quote} /> per <${Token} a=${selected.base} />)</th>
                  <th class="num">sell</th><th class="num">buy</th><th>owner</th><th>status</th></tr></thead>
                <tbody>
                  ${rows.slice(0, ROWS).map(
                    ({ o, ask, p }) => html`<tr key=${o.uid} data-uid=${o.uid}>
                      <td><${Uid} uid=${o.uid} /></td><td>${ask ? 'ask' : 'bid'}</td><td class="num">${priced ? price(p) : '…'}</td>
                      <td class="num"><${Amount} raw=${o.sellAmount} t=${o.sellToken} /></td><td class="num"><${Amount} raw=${o.buyAmount} t=${o.buyToken} /></td>
                      <td><${Addr} a=${o.owner} /></td><td><${Status} s=${o.status} /></td></tr>`,
                  )}
                </tbody>
              </table>`
          : base && html`<p class="muted">No open orders in ${short(base)} / ${short(quote)}.</p>`}
      </div>
    </div>`;
}

export function OrderPage({ uid }) {
  useBook();
  useTokens();
  const key = `${uid}:${book.touched.get(uid) ?? 0}`;
  const order = useLoad(() => getJson(`orders/${uid}`), key);
  const events = useLoad(() => getJson(`orders/${uid}/events`), key);
  const trades = useLoad(() => getJson(`trades?orderUid=${uid}`), key);
  const o = order.data;
  return html`
    <h1>Order <span class="mono">${short(uid, 10)}</span></h1>
    <${Failed} error=${order.error} />
    ${o &&
    html`<div class="card">
      <dl class="fields" data-testid="order-fields">
        <dt>status</dt><dd><${Status} s=${o.status} /></dd>
        <dt>uid</dt><dd class="mono">${o.uid}</dd>
        <dt>owner</dt><dd><${Addr} a=${o.owner} /></dd>
        <dt>kind</dt><dd>${o.kind}${o.partiallyFillable ? ' (partially fillable)' : ''}</dd>
        <dt>sell</dt><dd><${Amount} raw=${o.sellAmount} t=${o.sellToken} /> <span class="mono muted">${o.sellToken}</span></dd>
        <dt>buy</dt><dd><${Amount} raw=${o.buyAmount} t=${o.buyToken} /> <span class="mono muted">${o.buyToken}</span></dd>
        <dt>limit price</dt><dd>${decimalsOf(o.sellToken) !== undefined && decimalsOf(o.buyToken) !== undefined
          ? html`${price(ratio(o.buyAmount, o.sellAmount, decimalsOf(o.buyToken), decimalsOf(o.sellToken)))} <${Token} a=${o.buyToken} /> per <${Token} a=${o.sellToken} />`
          : '…'}</dd>
        <dt>fee</dt><dd><${Amount} raw=${o.feeAmount} t=${o.sellToken} /></dd>
        <dt>executed</dt><dd>sold <${Amount} raw=${o.executedSellAmount} t=${o.sellToken} />, bought <${Amount} raw=${o.executedBuyAmount} t=${o.buyToken} /></dd>
        <dt>valid to</dt><dd>${time(new Date(o.validTo * 1000).toISOString())}</dd>
        <dt>created</dt><dd>${time(o.creationDate)}</dd>
        <dt>signing scheme</dt><dd>${o.signingScheme}</dd>
        <dt>receiver</dt><dd class="mono">${o.receiver ?? '(owner)'}</dd>
        <dt>app data</dt><dd class="mono">${o.appData}</dd>
      </dl></div>`}
    <h2>History</h2>
    <ol class="timeline" data-testid="timeline">
      ${(events.data ?? []).map(
        (e) => html`<li key=${e.position} data-type=${e.type}>
          <strong>${e.type}</strong> <span class="muted">#${e.position} · ${time(e.recordedAt)}</span>
          ${e.data.chain && html`<div class="muted mono">block ${e.data.chain.blockNumber} · tx ${e.data.chain.transactionHash}</div>`}</li>`,
      )}
    </ol>
    <h2>Trades</h2>
    <${TradesTable} trades=${trades.data ?? []} />`;
}

function TradesTable({ trades }) {
  if (trades.length === 0) return html`<p class="muted">No trades.</p>`;
  return html`<table data-testid="trades">
    <thead><tr><th>block</th><th>order</th><th>owner</th><th class="num">sold</th><th class="num">bought</th><th>transaction</th></tr></thead>
    <tbody>
      ${trades.map(
        (t) => html`<tr key=${t.transactionHash + t.logIndex}>
          <td class="num">${t.blockNumber}</td><td><${Uid} uid=${t.orderUid} /></td><td><${Addr} a=${t.owner} /></td>
          <td class="num"><${Amount} raw=${t.sellAmount} t=${t.sellToken} /></td><td class="num"><${Amount} raw=${t.buyAmount} t=${t.buyToken} /></td><td><${Tx} hash=${t.transactionHash} /></td></tr>`,
      )}
    </tbody></table>`;
}

export function OwnerPage({ owner }) {
  useBook();
  const address = owner.toLowerCase();
  // The last event of any of this owner's orders: the page reloads its lists when it changes.
  let last = 0;
  for (const [uid, position] of book.touched) if (position > last && ownerOfUid(uid) === address) last = position;
  const key = `${address}:${last}`;
  const orders = useLoad(
    () => getPages(`orders?owner=${address}&includeFullyExecuted=true&includeInvalidated=true&includeInsufficientBalance=true&minValidTo=0`),
    key,
  );
  const trades = useLoad(() => getJson(`trades?owner=${address}&limit=1000`), key);
  return html`
    <h1>Owner <span class="mono">${address}</span></h1>
    <${Failed} error=${orders.error} />
    <h2>Orders</h2>
    <table data-testid="owner-orders">
      <thead><tr><th>order</th><th>created</th><th class="num">sell</th><th class="num">buy</th><th>status</th></tr></thead>
      <tbody>${(orders.data ?? []).map(
        (o) => html`<tr key=${o.uid}><td><${Uid} uid=${o.uid} /></td><td>${time(o.creationDate)}</td>
          <td class="num"><${Amount} raw=${o.sellAmount} t=${o.sellToken} /></td>
          <td class="num"><${Amount} raw=${o.buyAmount} t=${o.buyToken} /></td><td><${Status} s=${o.status} /></td></tr>`,
      )}</tbody>
    </table>
    <h2>Trades</h2>
    <${TradesTable} trades=${trades.data ?? []} />`;
}

/** Every trade, newest first (the API gives them oldest first, 1000 at a time). */
async function allTrades() {
  const trades = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await getJson(`trades?limit=1000&offset=${offset}`);
    trades.push(...page);
    if (page.length < 1000 || offset >= 9000) break;
  }
  return trades.reverse();
}

export function TradesPage() {
  useBook();
  const lastTrade = [...book.events].reverse().find((e) => e.type === 'TradeRecorded' || e.type === 'ChainEventReverted');
  const trades = useLoad(allTrades, lastTrade?.position ?? 0);
  return html`<h1>Trades</h1><${Failed} error=${trades.error} /><${TradesTable} trades=${trades.data ?? []} />`;
}

export function EventsPage() {
  useBook();
  // Digests read every document: asked for again at most every two seconds, and only after new events.
  const [digestsAt, setDigestsAt] = useState(book.position);
  useEffect(() => {
    const timer = setInterval(() => setDigestsAt(book.position), 2000);
    return () => clearInterval(timer);
  }, []);
  const projections = useLoad(() => getJson('projections'), digestsAt);
  // The log's head as the page opens: its last events are read once, before the live ones.
  useEffect(() => book.backfill(projections.data?.head), [projections.data?.head]);
  const [replay, setReplay] = useState({ running: false });
  const verify = async () => {
    setReplay({ running: true });
    try {
      setReplay({ running: false, result: await getJson('projections/replay', { method: 'POST' }, true) });
    } catch (err) {
      setReplay({ running: false, error: err.message, needsToken: err instanceof NeedsToken });
    }
  };
  const tail = book.events.slice(-100).reverse();
  return html`
    <h1>Event log</h1>
    <div class="grid">
      <div class="card">
        <h2>Projections</h2>
        <p class="muted">Log head: <span data-testid="log-head">${projections.data?.head ?? '…'}</span></p>
        <table data-testid="projections">
          <thead><tr><th>read model</th><th class="num">at</th><th class="num">docs</th><th>sha256</th></tr></thead>
          <tbody>${Object.entries(projections.data?.projections ?? {}).map(
            ([name, p]) => html`<tr key=${name}><td>${name}</td><td class="num">${p.position}</td><td class="num">${p.documents}</td>
              <td class="mono" title=${p.sha256}>${p.sha256.slice(0, 12)}…</td></tr>`,
          )}</tbody>
        </table>
        <p><button onClick=${verify} disabled=${replay.running} data-testid="verify">${replay.running ? 'Replaying…' : 'Verify by replay'}</button></p>
        ${replay.error && !replay.needsToken && html`<p class="bad">${replay.error}</p>`}
        ${replay.needsToken && html`<${TokenForm} why=${`Replay is an operator route: ${replay.error}`} done=${verify} />`}
        ${replay.result &&
        html`<p data-testid="verify-result" class=${replay.result.matches ? 'ok' : 'bad'}>
          ${replay.result.matches ? 'Replay reproduces every digest' : 'Replay differs'} (position ${replay.result.position},
          ${replay.result.events} events in ${replay.result.seconds} s)</p>
          <ul>${Object.entries(replay.result.projections).map(
            ([name, c]) => html`<li key=${name}>${name}: <span class=${c.matches ? 'ok' : 'bad'}>${c.matches ? 'same' : 'different'}</span>
              <span class="mono muted">${c.replay?.sha256?.slice(0, 12)}</span></li>`,
          )}</ul>`}
      </div>
      <div>
        <h2>Live tail</h2>
        <table data-testid="event-tail">
          <thead><tr><th class="num">position</th><th>type</th><th>order</th><th>recorded</th></tr></thead>
          <tbody>${tail.map(
            (e) => html`<tr key=${e.position}><td class="num">${e.position}</td><td>${e.type}</td>
              <td>${e.data?.uid ? html`<${Uid} uid=${e.data.uid} />` : ''}</td><td>${time(e.recordedAt)}</td></tr>`,
          )}</tbody>
        </table>
        ${tail.length === 0 && html`<p class="muted">${projections.data?.head === 0 ? 'The log is empty; waiting for events…' : 'Reading the log…'}</p>`}
      </div>
    </div>`;
}

const pct = (x) => (x === null || x === undefined ? '–' : `${(x * 100).toFixed(1)}%`);
const ms = (x) => (x === null || x === undefined ? '–' : `${x.toFixed(1)} ms`);

export function GatewayPage() {
  const [state, setState] = useState({});
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let alive = true;
    let timer;
    const poll = async () => {
      try {
        const status = await getJson('/status', undefined, true);
        if (alive) setState({ status, at: new Date() });
      } catch (err) {
        // Without the token there is nothing to poll for: the form asks for it, and polling resumes after.
        if (alive) setState((s) => ({ ...s, error: err.message, needsToken: err instanceof NeedsToken }));
        if (err instanceof NeedsToken) return;
      }
      if (alive) timer = setTimeout(poll, 1000);
    };
    poll();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [attempt]);
  const { status, error, at, needsToken } = state;
  return html`
    <h1>Gateway</h1>
    ${needsToken && html`<${TokenForm} why=${`GET /status is an operator route: ${error}`} done=${() => { setState({}); setAttempt((n) => n + 1); }} />`}
    ${error && !needsToken && html`<p class="bad">GET /status: ${error}</p>`}
    ${at && html`<p class="muted">updated ${at.toLocaleTimeString()}</p>`}
    ${status?.orderbook &&
    html`<p>Order book: <strong>${status.orderbook.state}</strong>${status.orderbook.reason ? ` (${status.orderbook.reason})` : ''}${' '}
      · indexed block ${status.orderbook.indexerBlock ?? '–'}${status.orderbook.role ? ` · ${status.orderbook.role}` : ''}</p>`}
    ${Object.entries(status?.networks ?? {}).map(
      ([name, n]) => html`<div class="card" key=${name} data-network=${name} style="margin-bottom:12px">
        <h2>${name} <span class="muted">chain ${n.chainId}</span></h2>
        <p>head <strong data-testid="network-head">${n.head ?? '–'}</strong> · cache hit ratio ${pct(n.cache?.hitRatio)}${' '}
          <span class="muted">(${n.cache?.hits ?? 0} hits, ${n.cache?.misses ?? 0} misses)</span></p>
        <table>
          <thead><tr><th>upstream</th><th>url</th><th>transport</th><th class="num">head</th><th class="num">lag</th>
            <th class="num">p50</th><th class="num">p99</th><th class="num">errors</th><th>state</th></tr></thead>
          <tbody>${(n.upstreams ?? []).map(
            (u) => html`<tr key=${u.id}><td>${u.id}</td><td class="mono">${u.url}</td><td>${u.transport}</td>
              <td class="num" data-testid="upstream-head">${u.head ?? '–'}</td><td class="num">${u.lag ?? '–'}</td>
              <td class="num">${ms(u.latencyMs?.p50)}</td><td class="num">${ms(u.latencyMs?.p99)}</td><td class="num">${pct(u.errorRate)}</td>
              <td class=${u.state === 'in' ? 'ok' : 'bad'}>${u.state}${u.reason ? ` (${u.reason})` : ''}</td></tr>`,
          )}</tbody>
        </table></div>`,
    )}`;
}
