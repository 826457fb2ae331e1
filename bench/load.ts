/**
 * The load generator: wrk (Debian package), one thread, a fixed number of keep-alive connections, driven
 * by a generated Lua script. wrk is written in C and its one thread costs a fraction of a core, which on
 * a two-core machine leaves the measured processes (relay and anvil) the rest; a Node load generator such
 * as autocannon would need about as much CPU as the relay it measures.
 *
 * A workload is a URL plus one body (or none, for GET), or a list of bodies drawn with a Zipf distribution
 * (rank k chosen with probability proportional to 1/k^s) so that some entries are hot and most are cold.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDebianPackage } from './tools.js';

export interface Workload {
  url: string;
  method: 'GET' | 'POST';
  /** The one body of every request (POST). */
  body?: string;
  /** Request headers besides Content-Type. */
  headers?: Record<string, string>;
  /** Bodies drawn by Zipf rank: bodies[0] is the hottest. */
  zipf?: { bodies: string[]; exponent: number };
}

export interface LoadOptions {
  connections: number;
  seconds: number;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Connect, read, write and timeout errors, and answers with a status other than 2xx/3xx. */
  errors: number;
}

const RESULT_MARK = 'WRK_RESULT ';

/** A Lua string literal. */
const lua = (text: string) => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

function script(workload: Workload): string {
  const lines = [`wrk.method = "${workload.method}"`, 'wrk.headers["Content-Type"] = "application/json"'];
  for (const [name, value] of Object.entries(workload.headers ?? {})) lines.push(`wrk.headers[${lua(name)}] = ${lua(value)}`);
  if (workload.body !== undefined) lines.push(`wrk.body = ${lua(workload.body)}`);
  if (workload.zipf) {
    const { bodies, exponent } = workload.zipf;
    lines.push(
      `local bodies = {${bodies.map(lua).join(',\n')}}`,
      // Cumulative weights once; each request draws by binary search. Seeded: every run draws the same sequence.
      'local cdf, total = {}, 0',
      `for k = 1, #bodies do total = total + 1 / (k ^ ${exponent}); cdf[k] = total end`,
      'math.randomseed(42)',
      'request = function()',
      '  local r, lo, hi = math.random() * total, 1, #bodies',
      '  while lo < hi do local mid = math.floor((lo + hi) / 2); if cdf[mid] < r then lo = mid + 1 else hi = mid end end',
      '  return wrk.format(nil, nil, nil, bodies[lo])',
      'end',
    );
  }
  lines.push(
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    `  io.write(string.format("${RESULT_MARK}%d %d %d %d %d\\n", summary.requests, summary.duration,`,
    '    e.connect + e.read + e.write + e.timeout + e.status, latency:percentile(50), latency:percentile(99)))',
    'end',
  );
  return lines.join('\n') + '\n';
}

export async function runLoad(workload: Workload, options: LoadOptions): Promise<LoadResult> {
  ensureDebianPackage('wrk', 'wrk');
  const dir = mkdtempSync(join(tmpdir(), 'ethgate-wrk-'));
  try {
    const file = join(dir, 'workload.lua');
    writeFileSync(file, script(workload));
    const args = ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s', '-s', file, workload.url];
    const output = await new Promise<string>((resolve, reject) => {
      const wrk = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      wrk.stdout.on('data', (c: Buffer) => (out += c.toString()));
      wrk.stderr.on('data', (c: Buffer) => (out += c.toString()));
      wrk.on('error', reject);
      wrk.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`wrk exited ${code}: ${out}`))));
    });
    const line = output.split('\n').find((l) => l.startsWith(RESULT_MARK));
    if (!line) throw new Error(`wrk printed no result: ${output}`);
    const [requests, durationUs, errors, p50Us, p99Us] = line.slice(RESULT_MARK.length).trim().split(/\s+/).map(Number);
    return { requests, rps: requests / (durationUs / 1e6), p50Ms: p50Us / 1000, p99Ms: p99Us / 1000, errors };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
