/**
 * The service as a separate process (`node dist/src/wiring/main.js`, what `npm start` runs), for tests and
 * benchmarks that kill it, restart it, or run several: in its own process group, so that a kill -9 of the
 * group takes its embedded anvil along, as a crash of the machine's service would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/devchain/anvil.js';
import { repoPath } from '../../src/shared/paths.js';

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /** url + /api/v1 */
  api: string;
  env: Record<string, string>;
  /** The service's output, for failure messages. */
  output: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** kill -9 of the process group; resolves once the service is gone. */
  kill9(): Promise<void>;
  /** SIGTERM, then SIGKILL after a while; resolves once the service is gone. */
  stop(): Promise<void>;
}

/**
 * A fresh data directory and free ports: the environment of a service child, before the caller's additions.
 * The dev solver is off: the orders a test or benchmark posts are its own to settle.
 */
export async function serviceEnv(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  return {
    PORT: String(await freePort()),
    DATA_DIR: mkdtempSync(join(tmpdir(), 'ethgate-child-')),
    NETWORKS: 'mainnet',
    ORDERBOOK: 'on',
    DEV_SOLVER: 'off',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

export interface SpawnOptions {
  timeoutMs?: number;
  /** Options for node itself, e.g. --cpu-prof (which NODE_OPTIONS does not take), after `npm start`'s. */
  nodeArgs?: string[];
  /** false: wait only until the process answers (GET /livez), for a service started with a part down. */
  expectHealthy?: boolean;
}

/** The options `npm start` gives node (package.json's start script: `exec node <options> dist/src/wiring/main.js`). */
export function startNodeArgs(): string[] {
  const start = (JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf('dist/src/wiring/main.js'));
}

/** Starts the service with exactly `env` (plus PATH and HOME) and waits until /healthz (or /livez) answers 200. */
export async function spawnService(env: Record<string, string>, options: SpawnOptions = {}): Promise<ServiceProcess> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const child = spawn(process.execPath, [...startNodeArgs(), ...(options.nodeArgs ?? []), repoPath('dist/src/wiring/main.js')], {
    cwd: repoPath(),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output: string[] = [];
  const keep = (d: Buffer) => {
    output.push(d.toString());
    if (output.length > 200) output.shift();
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${env.PORT}`;
  const gone = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
    }
    await exited;
  };
  const running: ServiceProcess = {
    child,
    url,
    api: `${url}/api/v1`,
    env,
    output,
    exited,
    kill9: () => gone('SIGKILL'),
    async stop() {
      const force = setTimeout(() => void gone('SIGKILL'), 15_000);
      await gone('SIGTERM');
      clearTimeout(force);
    },
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the service exited while starting:\n${output.join('')}`);
    }
    if (Date.now() > deadline) {
      await running.kill9();
      throw new Error(`the service was not healthy within ${timeoutMs} ms:\n${output.join('')}`);
    }
    try {
      const res = await fetch(`${url}/${options.expectHealthy === false ? 'livez' : 'healthz'}`);
      await res.arrayBuffer();
      if (res.status === 200) return running;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
