/**
 * The load generator: wrk (Debian package), one thread, a fixed number of keep-alive connections, driven
 * by a generated Lua script. wrk is written in C and its one thread costs a fraction of a core, which on
 * a two-core machine leaves the measured processes (relay and anvil) the rest; a Node load generator such
 * as autocannon would need about as much CPU as the relay it measures.
 *
 * A workload is a URL plus one body (or none, for GET), or a list of bodies drawn with a Zipf distribution
 * (rank k chosen with probability proportional to 1/k^s) so that some entries are hot and most are cold.
 * sendOnce sends a list of bodies once each (orders: each one new) and ends at the last one's answer.
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
  /** Paths drawn uniformly, each request one of them (the url's own path otherwise). */
  paths?: string[];
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

/** The request's method and headers, JSON bodies. */
function requestLines(method: Workload['method'], headers: Record<string, string> = {}): string[] {
  const lines = [`wrk.method = "${method}"`, 'wrk.headers["Content-Type"] = "application/json"'];
  for (const [name, value] of Object.entries(headers)) lines.push(`wrk.headers[${lua(name)}] = ${lua(value)}`);
  return lines;
}

/**
 * The Lua of runLoad. `dir` holds the files it reads: the paths, one per line (LuaJIT cannot hold a table
 * constructor of 100,000 strings in one function).
 */
function script(workload: Workload, dir: string): string {
  const lines = requestLines(workload.method, workload.headers);
  if (workload.zipf && workload.paths) throw new Error('a workload draws bodies or paths, not both');
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
  if (workload.paths) {
    if (workload.paths.some((path) => !path.startsWith('/') || /\s/.test(path))) throw new Error('a path to draw is not an absolute path without spaces');
    const file = join(dir, 'paths');
    writeFileSync(file, workload.paths.join('\n') + '\n');
    lines.push(
      'local paths = {}',
      // Seeded in init, the thread's own state: every run draws the same sequence.
      `function init(args) for line in io.lines(${lua(file)}) do paths[#paths + 1] = line end; math.randomseed(42) end`,
      'request = function() return wrk.format(nil, paths[math.random(#paths)]) end',
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

/**
 * Runs wrk (one thread) with the script `write` returns, given a temporary directory for any file it needs,
 * and resolves with what wrk printed: when it exits, or as soon as `finished(output)` holds, ending it then.
 */
async function runWrk(
  url: string,
  options: LoadOptions,
  write: (dir: string) => string,
  finished?: (output: string) => boolean,
): Promise<string> {
  ensureDebianPackage('wrk', 'wrk');
  const dir = mkdtempSync(join(tmpdir(), 'ethgate-wrk-'));
  try {
    const file = join(dir, 'workload.lua');
    writeFileSync(file, write(dir));
    const args = ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s', '-s', file, url];
    return await new Promise<string>((resolve, reject) => {
      const wrk = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      wrk.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (finished?.(out)) {
          wrk.kill('SIGKILL');
          resolve(out);
        }
      });
      wrk.stderr.on('data', (c: Buffer) => (out += c.toString()));
      wrk.on('error', reject);
      wrk.on('exit', (code) => (code === 0 || finished?.(out) ? resolve(out) : reject(new Error(`wrk exited ${code}: ${out}`))));
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runLoad(workload: Workload, options: LoadOptions): Promise<LoadResult> {
  const output = await runWrk(workload.url, options, (dir) => script(workload, dir));
  const line = output.split('\n').find((l) => l.startsWith(RESULT_MARK));
  if (!line) throw new Error(`wrk printed no result: ${output}`);
  const [requests, durationUs, errors, p50Us, p99Us] = line.slice(RESULT_MARK.length).trim().split(/\s+/).map(Number);
  return { requests, rps: requests / (durationUs / 1e6), p50Ms: p50Us / 1000, p99Ms: p99Us / 1000, errors };
}

export interface OnceResult {
  /** Bodies answered, and answered with another status than expected (the first of those, status and body). */
  answered: number;
  unexpected: number;
  firstUnexpected?: string;
  /** From the first body sent to the last answer. */
  seconds: number;
}

const ONCE_MARK = 'WRK_ONCE ';

/**
 * The Lua of sendOnce. The bodies are read from `file`, one per line, by the thread's own state. A
 * connection that finds every body sent while others still wait for their answers sends the head of one
 * more request whose body never comes: the server waits for it, at no cost, while the last answers come.
 * (A quick idle request instead had the spare connections loading the server while it answered the last
 * bodies; wrk's delay() holds a connection back, but each delayed request then waited ~10 ms in wrk's
 * timers.) The last answer prints the result, and sendOnce ends wrk: wrk itself would sleep out its
 * duration. The clock is CLOCK_MONOTONIC, through LuaJIT's FFI.
 */
function onceScript(file: string, status: number): string {
  return [
    ...requestLines('POST'),
    'local ffi = require("ffi")',
    'ffi.cdef[[ typedef struct { long sec; long nsec; } once_timespec; int clock_gettime(int, once_timespec *); ]]',
    'local ts = ffi.new("once_timespec")',
    'local function now() ffi.C.clock_gettime(1, ts); return tonumber(ts.sec) + tonumber(ts.nsec) / 1e9 end',
    'local bodies, sent, held, started = {}, 0, nil, nil',
    'answered, unexpected, first = 0, 0, nil',
    'local threads = {}',
    'function setup(thread) table.insert(threads, thread) end',
    'local function report(a, u, f, seconds)',
    `  if f then io.write("${ONCE_MARK}first " .. f:gsub("\\n", " ") .. "\\n") end`,
    `  io.write(string.format("${ONCE_MARK}%d %d %.6f\\n", a, u, seconds))`,
    '  io.stdout:flush()',
    'end',
    'function init(args)',
    `  for line in io.lines(${lua(file)}) do bodies[#bodies + 1] = line end`,
    '  held = wrk.format(nil, nil, nil, nil):gsub("\\r\\n\\r\\n$", "\\r\\nContent-Length: 1000\\r\\n\\r\\n")',
    'end',
    // wrk calls request() once after init() to see how many requests it returns, and sends nothing of it.
    'local verified = false',
    'function request()',
    '  if not verified then verified = true; return wrk.format(nil, nil, nil, bodies[1]) end',
    '  if sent == #bodies then return held end',
    '  if sent == 0 then started = now() end',
    '  sent = sent + 1',
    '  return wrk.format(nil, nil, nil, bodies[sent])',
    'end',
    'function response(status, headers, body)',
    '  answered = answered + 1',
    `  if status ~= ${status} then`,
    '    unexpected = unexpected + 1',
    '    if first == nil then first = status .. " " .. body end',
    '  end',
    '  if answered == #bodies then report(answered, unexpected, first, now() - started) end',
    'end',
    // Only when the time limit came first.
    'function done(summary, latency, requests)',
    '  local a, u, f = 0, 0, nil',
    '  for _, t in ipairs(threads) do a, u, f = a + t:get("answered"), u + t:get("unexpected"), f or t:get("first") end',
    '  report(a, u, f, summary.duration / 1e6)',
    'end',
  ].join('\n') + '\n';
}

/**
 * POSTs each of `bodies` once, in order, with `connections` in flight, and returns when the last is
 * answered (or at `seconds`, a limit). Each answer is expected with `status`.
 */
export async function sendOnce(url: string, bodies: string[], options: { connections: number; status: number; seconds: number }): Promise<OnceResult> {
  if (bodies.some((b) => b.includes('\n'))) throw new Error('a body to send once holds a line break');
  // Whole lines only: a chunk may end within one. The result is the line that is not the first answer's.
  const marked = (output: string) => output.split('\n').slice(0, -1).filter((l) => l.startsWith(ONCE_MARK)).map((l) => l.slice(ONCE_MARK.length));
  const result = (lines: string[]) => lines.find((l) => !l.startsWith('first '));
  const output = await runWrk(
    url,
    // No more connections than bodies: a spare connection would only hold a request open.
    { connections: Math.min(options.connections, bodies.length), seconds: options.seconds },
    (dir) => {
      writeFileSync(join(dir, 'bodies'), bodies.join('\n') + '\n');
      return onceScript(join(dir, 'bodies'), options.status);
    },
    (out) => result(marked(out)) !== undefined,
  );
  const lines = marked(output);
  const line = result(lines);
  if (line === undefined) throw new Error(`wrk ended without a result: ${output}`);
  const first = lines.find((l) => l.startsWith('first '))?.slice('first '.length);
  const [answered, unexpected, seconds] = line.trim().split(/\s+/).map(Number);
  return { answered, unexpected, seconds, ...(first ? { firstUnexpected: first } : {}) };
}
