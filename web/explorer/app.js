// The explorer's shell: the navigation bar, the live indicator, and the hash routes to each page
// (#/markets/<base>/<quote>, #/order/<uid>, #/owner/<address>, #/trades, #/events, #/gateway).
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { book, useBook } from './data.js';
import { EventsPage, GatewayPage, Markets, OrderPage, OwnerPage, TradesPage } from './pages.js';

function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  return { page: parts[0] ?? 'markets', args: parts.slice(1) };
}

function useRoute() {
  const [current, setCurrent] = useState(route());
  useEffect(() => {
    const onChange = () => setCurrent(route());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return current;
}

const PAGES = [
  ['markets', 'Markets'],
  ['trades', 'Trades'],
  ['events', 'Event log'],
  ['gateway', 'Gateway'],
];

function Live() {
  useBook();
  return html`<span class="live" data-testid="live"><span class=${`dot ${book.connected ? 'on' : ''}`}></span>
    ${book.connected ? 'live' : 'connecting'}${book.position ? ` · #${book.position}` : ''}</span>`;
}

function Page({ page, args }) {
  switch (page) {
    case 'markets':
      return html`<${Markets} base=${args[0]?.toLowerCase()} quote=${args[1]?.toLowerCase()} />`;
    case 'order':
      return html`<${OrderPage} uid=${args[0]?.toLowerCase()} />`;
    case 'owner':
      return html`<${OwnerPage} owner=${args[0]} />`;
    case 'trades':
      return html`<${TradesPage} />`;
    case 'events':
      return html`<${EventsPage} />`;
    case 'gateway':
      return html`<${GatewayPage} />`;
    default:
      return html`<p>No page ${page}. <a href="#/markets">Markets</a></p>`;
  }
}

function App() {
  const { page, args } = useRoute();
  return html`
    <header class="bar">
      <strong>ethgate</strong>
      ${PAGES.map(([id, label]) => html`<a href=${`#/${id}`} class=${page === id ? 'active' : ''}>${label}</a>`)}
      <${Live} />
    </header>
    <main><${Page} key=${page + args.join('/')} page=${page} args=${args} /></main>`;
}

book.start();
document.getElementById('app').textContent = '';
render(html`<${App} />`, document.getElementById('app'));
