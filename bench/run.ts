/**
 * `npm run bench`: runs the benchmark suites (all, or those named as arguments), prints their figures as a
 * table and merges them into bench-results.json ({"<name>": {"value": n, "unit": "..."}}; figures of suites
 * not run this time are kept). Suites are async functions returning such figures: `npm run bench -- gateway`
 * runs one of them.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { repoPath } from '../src/shared/paths.js';
import { benchGateway, benchGatewayIdle } from './gateway.js';
import { benchGatewayMicro } from './gateway-micro.js';
import type { Figure } from './tools.js';
import { benchOrderbook } from './orderbook.js';
import { benchExplorer } from './explorer.js';
import { benchFeeStore } from './fee-store.js';
import { benchLive } from './live.js';
import { benchAbuse } from './abuse.js';

const SUITES: Record<string, () => Promise<Record<string, Figure>>> = {
  gateway: benchGateway,
  'gateway-micro': benchGatewayMicro,
  'gateway-idle': benchGatewayIdle,
  orderbook: () => benchOrderbook(),
  explorer: benchExplorer,
  fees: () => benchFeeStore(),
  live: benchLive,
  abuse: benchAbuse,
};

const RESULTS_FILE = repoPath('bench-results.json');

/**
 * Figures named <row>.<column>: rows that measure throughput (they have an `rps` column) as one table, every
 * other figure (ratios, ...) one per line.
 */
function printTable(figures: Record<string, Figure>): void {
  const rows = new Map<string, Map<string, Figure>>();
  for (const [name, figure] of Object.entries(figures)) {
    const cut = name.lastIndexOf('.');
    const row = name.slice(0, cut);
    if (!rows.has(row)) rows.set(row, new Map());
    rows.get(row)!.set(name.slice(cut + 1), figure);
  }
  const measured = [...rows].filter(([, cells]) => cells.has('rps'));
  const columns = [...new Set(measured.flatMap(([, cells]) => [...cells.keys()]))];
  const header = ['', ...columns.map((c) => `${c} (${measured.find(([, cells]) => cells.has(c))![1].get(c)!.unit})`)];
  const table = [header, ...measured.map(([row, cells]) => [row, ...columns.map((c) => String(cells.get(c)?.value ?? ''))])];
  const widths = header.map((_, i) => Math.max(...table.map((line) => line[i].length)));
  for (const line of table) console.log(line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '));
  for (const [row, cells] of rows) {
    if (cells.has('rps')) continue;
    for (const [column, { value, unit }] of cells) console.log(`${row}.${column}: ${value} ${unit}`);
  }
}

/** The figures compare processes sharing the machine's cores: anything else running skews them. */
function warnIfBusy(when: string): void {
  const [oneMinute] = loadavg();
  if (oneMinute > 1) console.error(`note: load average ${oneMinute.toFixed(2)} at the ${when}: other work may skew these figures`);
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !(name in SUITES));
  if (unknown.length > 0) throw new Error(`unknown suite(s) ${unknown.join(', ')}; known: ${Object.keys(SUITES).join(', ')}`);
  const figures: Record<string, Figure> = {};
  warnIfBusy('start');
  for (const [name, suite] of Object.entries(SUITES)) {
    if (wanted.length > 0 && !wanted.includes(name)) continue;
    console.error(`suite ${name}`);
    Object.assign(figures, await suite());
  }
  warnIfBusy('end');
  printTable(figures);
  const previous: Record<string, Figure> = existsSync(RESULTS_FILE) ? JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) : {};
  writeFileSync(RESULTS_FILE, JSON.stringify({ ...previous, ...figures }, null, 2) + '\n');
  console.error(`wrote ${RESULTS_FILE}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
