/**
 * An anvil dev chain run as a child process: the embedded upstream of a network that has none configured.
 *
 * - It listens on a free loopback port, kept across restarts so that upstream URLs stay valid.
 * - If it dies it is started again (and 'restarted' is emitted); stop() ends it for good.
 * - It cannot outlive the service: on Linux it is started through `setpriv --pdeathsig KILL`, so even a
 *   kill -9 of the service takes it along, and a pid file under DATA_DIR/run lets the next start reap one
 *   left by a platform without setpriv.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { foundryBinary } from './foundry.js';
import type { Logger } from '../shared/logger.js';

export interface AnvilOptions {
  /** Used for the pid file and logs. */
  name: string;
  chainId: number;
  /** Where the pid file goes; no pid file when absent. */
  runDir?: string;
  logger: Logger;
  /** Extra command-line arguments, e.g. ['--block-time', '1']. */
  args?: string[];
  /** Port to listen on; a free one when absent. */
  port?: number;
}

const SETPRIV = '/usr/bin/setpriv';
const READY_TIMEOUT_MS = 20_000;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export class Anvil extends EventEmitter {
  private child: ChildProcess | undefined;
  private port: number | undefined;
  private stopping = false;

  constructor(private readonly options: AnvilOptions) {
    super();
    this.port = options.port;
  }

  get httpUrl(): string {
    return `http://127.0.0.1:${this.requirePort()}`;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.requirePort()}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    this.stopping = false;
    this.reapLeftover();
    for (let attempt = 1; ; attempt++) {
      this.port ??= await freePort();
      try {
        await this.spawnAndWait();
        return;
      } catch (err) {
        // Another process may have taken the port between freePort() and anvil's bind: try a new one.
        if (attempt >= 3 || this.options.port !== undefined) throw err;
        this.port = undefined;
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(timer);
    }
    if (this.pidFile) rmSync(this.pidFile, { force: true });
  }

  /** Kills the process the way a crash would, so that tests can watch the restart. */
  crash(): void {
    this.child?.kill('SIGKILL');
  }

  private get pidFile(): string | undefined {
    return this.options.runDir ? join(this.options.runDir, `anvil-${this.options.name}.pid`) : undefined;
  }

  private requirePort(): number {
    if (this.port === undefined) throw new Error(`anvil ${this.options.name} has not started`);
    return this.port;
  }

  private reapLeftover(): void {
    const file = this.pidFile;
    if (!file || !existsSync(file)) return;
    const pid = Number(readFileSync(file, 'utf8'));
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes('anvil')) {
        process.kill(pid, 'SIGKILL');
        this.options.logger.warn({ network: this.options.name, pid }, 'killed an anvil left by an earlier run');
      }
    } catch {
      // not running any more
    }
    rmSync(file, { force: true });
  }

  private async spawnAndWait(): Promise<void> {
    const args = [
      '--port', String(this.port),
      '--host', '127.0.0.1',
      '--chain-id', String(this.options.chainId),
      '--quiet',
      ...(this.options.args ?? []),
    ];
    const binary = foundryBinary('anvil');
    const useSetpriv = process.platform === 'linux' && existsSync(SETPRIV);
    const child = useSetpriv
      ? spawn(SETPRIV, ['--pdeathsig', 'KILL', '--', binary, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2_000);
    });
    this.child = child;
    if (this.pidFile && child.pid) {
      mkdirSync(this.options.runDir!, { recursive: true });
      writeFileSync(this.pidFile, String(child.pid));
    }

    const exitedEarly = new Promise<never>((_, reject) =>
      child.once('exit', (code, signal) =>
        reject(new Error(`anvil ${this.options.name} exited during start (${signal ?? code}): ${stderr.trim()}`)),
      ),
    );
    await Promise.race([this.waitReady(), exitedEarly]);
    child.on('exit', (code, signal) => this.onExit(child, code, signal));
  }

  private async waitReady(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
    while (Date.now() < deadline) {
      try {
        const res = await fetch(this.httpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`anvil ${this.options.name} did not answer within ${READY_TIMEOUT_MS} ms`);
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.stopping || this.child !== child) return;
    this.options.logger.warn({ network: this.options.name, code, signal }, 'embedded anvil died; restarting');
    this.child = undefined;
    const retry = (delay: number) =>
      setTimeout(() => {
        if (this.stopping) return;
        this.spawnAndWait().then(
          () => this.emit('restarted'),
          (err: Error) => {
            this.options.logger.error({ network: this.options.name, err: err.message }, 'anvil restart failed');
            retry(Math.min(delay * 2, 5_000));
          },
        );
      }, delay);
    retry(200);
  }
}
