/**
 * The service as a child process (`node dist/src/wiring/main.js`), for tests that kill it the hard way: each
 * child runs in its own process group, so that `kill9()` takes everything it started along, as a crash of
 * the machine would. Its log lines are kept to show when a test fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/devchain/anvil.js';
import { repoPath } from '../../src/shared/paths.js';
import { startNodeArgs } from './process.js';
import { http } from './http.js';

export interface ServiceProcess {
  url: string;
  dataDir: string;
  child: ChildProcess;
  /** Everything the child wrote (JSON log lines). */
  output: string[];
  exited: Promise<void>;
  /** SIGKILL to the child's process group; resolves when the child is gone. */
  kill9(): Promise<void>;
  /** SIGTERM, then SIGKILL after 10 s. */
  stop(): Promise<void>;
}

export interface ServiceProcessOptions {
  env: Record<string, string>;
  /** Reuse a data directory (a restart); a fresh temporary one otherwise. */
  dataDir?: string;
  /** Reuse a port (a restart answers where the client knows it). */
  port?: number;
}

/**
 * Starts the service and waits until /healthz answers 200 (chains reachable, read models caught up). The
 * dev solver is off unless `env` turns it on: a test's orders are its own to settle.
 */
export async function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'ethgate-child-'));
  const child = spawn(process.execPath, [...startNodeArgs(), repoPath('dist/src/wiring/main.js')], {
    cwd: repoPath(),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info', DEV_SOLVER: 'off', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output: string[] = [];
  child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const running: ServiceProcess = {
    url,
    dataDir,
    child,
    output,
    exited,
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the service exited during start:\n${output.join('')}`);
    }
    try {
      if ((await http(`${url}/healthz`)).status === 200) return running;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await running.kill9();
      throw new Error(`the service was not healthy within 60 s:\n${output.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function removeDataDir(dataDir: string): void {
  rmSync(dataDir, { recursive: true, force: true });
}
