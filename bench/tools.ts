/**
 * What the benchmark suites share: the figure shape they report, rounding, a process's CPU time, the
 * target printer, and the outside programs they drive: Debian packages installed on demand (wrk, nginx),
 * child processes started and waited for, free ports.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export { freePort } from '../src/devchain/anvil.js';

/** One figure of bench-results.json. */
export interface Figure {
  value: number;
  unit: string;
}

/** The p-th percentile (0..100) of ascending `sorted`, nearest rank. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function round(value: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * CPU seconds (user + system) process `pid` has used so far, from /proc (Linux); NaN when unreadable.
 * `endedChildren`: with those of its children that have ended and been waited for (the wrk runs the bench
 * spawns).
 */
export function cpuSeconds(pid: number, { endedChildren = false } = {}): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime, stime, cutime and cstime are fields 14 to 17 of stat, i.e. 11 to 14 after the command name,
    // in clock ticks (100 per second on Linux).
    const own = Number(fields[11]) + Number(fields[12]);
    return (endedChildren ? own + Number(fields[13]) + Number(fields[14]) : own) / 100;
  } catch {
    return NaN;
  }
}

function onPath(binary: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore', env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/sbin` } }).status === 0;
}

/** Installs a Debian package with apt-get when its binary is missing (the benchmark runs as root on CI). */
export function ensureDebianPackage(binary: string, pkg: string): void {
  if (onPath(binary)) return;
  console.error(`installing the Debian package ${pkg} (for ${binary})...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', '--no-install-recommends', pkg]]) {
    const run = spawnSync('apt-get', args, { stdio: 'inherit', env });
    if (run.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed: install ${pkg} yourself (needs root)`);
  }
  if (!onPath(binary)) throw new Error(`${pkg} installed but ${binary} is not on PATH`);
}

export interface Child {
  process: ChildProcess;
  /** The last lines it wrote, for error messages. */
  output(): string;
  stop(): Promise<void>;
}

export function startChild(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Child {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return {
    process: child,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** Waits until a JSON-RPC POST of eth_chainId to `url` succeeds. */
export async function waitForRpc(url: string, child?: Child, timeoutMs = 60_000): Promise<void> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
  await waitForAnswer(
    url,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body },
    async (res) => res.ok && Boolean(((await res.json()) as { result?: unknown }).result),
    child,
    timeoutMs,
  );
}

/** Waits until a request to `url` gets an answer `accepted` takes (failing early if `child` exits). */
export async function waitForAnswer(
  url: string,
  init: RequestInit,
  accepted: (res: Response) => Promise<boolean>,
  child?: Child,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.process.exitCode !== null) throw new Error(`process exited: ${child.output()}`);
    try {
      if (await accepted(await fetch(url, init))) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms${child ? `: ${child.output()}` : ''}`);
}

/** A target of an issue: a figure's key, and the bound it must reach (at least or at most). */
export interface Target {
  label: string;
  key: string;
  atLeast?: number;
  atMost?: number;
}

/** Prints a suite's targets, each met or MISSED with its figure; a figure the run did not measure is left out. */
export function printTargets(heading: string, figures: Record<string, { value: number; unit: string }>, targets: Target[]): void {
  console.error(`targets (${heading}):`);
  for (const { label, key, atLeast, atMost } of targets) {
    const figure = figures[key];
    if (!figure) continue;
    const met = (atLeast === undefined || figure.value >= atLeast) && (atMost === undefined || figure.value <= atMost);
    const bound = atLeast !== undefined ? `>= ${atLeast}` : `<= ${atMost}`;
    console.error(`  ${met ? 'met   ' : 'MISSED'} ${label}: ${figure.value} ${figure.unit} (target ${bound})`);
  }
}
