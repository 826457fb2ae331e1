/**
 * `npm run bench`: runs the benchmark suites (all, or those named as arguments), prints their figures as a
 * table and merges them into bench-results.json ({"<name>": {"value": n, "unit": "..."}}; figures of suites
 * not run this time are kept). Suites are async functions returning such figures; the order book adds its
 * own here.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { repoPath } from '../src/paths.js';
import { benchGateway, type Figure } from './gateway.js';

const SUITES: Record<string, () => Promise<Record<string, Figure>>> = {
  gateway: benchGateway,
};

const RESULTS_FILE = repoPath('bench-results.json');

/** Figures named <row>.<column> shown as a table: one row per prefix, one column per last segment. */
function printTable(figures: Record<string, Figure>): void {
  const rows = new Map<string, Map<string, string>>();
  const columns: string[] = [];
  for (const [name, { value, unit }] of Object.entries(figures)) {
    const cut = name.lastIndexOf('.');
    const row = name.slice(0, cut);
    const column = `${name.slice(cut + 1)} (${unit})`;
    if (!columns.includes(column)) columns.push(column);
    if (!rows.has(row)) rows.set(row, new Map());
    rows.get(row)!.set(column, String(value));
  }
  const table = [['', ...columns], ...[...rows].map(([row, cells]) => [row, ...columns.map((c) => cells.get(c) ?? '')])];
  const widths = table[0].map((_, i) => Math.max(...table.map((line) => line[i].length)));
  for (const line of table) console.log(line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '));
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !(name in SUITES));
  if (unknown.length > 0) throw new Error(`unknown suite(s) ${unknown.join(', ')}; known: ${Object.keys(SUITES).join(', ')}`);
  const figures: Record<string, Figure> = {};
  for (const [name, suite] of Object.entries(SUITES)) {
    if (wanted.length > 0 && !wanted.includes(name)) continue;
    console.error(`suite ${name}`);
    Object.assign(figures, await suite());
  }
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
