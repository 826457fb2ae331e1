/**
 * Upstreams for gateway tests: anvil processes the test owns (killed with SIGKILL and started again on the
 * same port at the test's command, unlike the embedded chain, which restarts itself), JSON-RPC calls to
 * them, and readings of the gateway's Prometheus metrics.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { foundryBinary } from '../../src/devchain/foundry.js';
import { freePort } from '../../src/devchain/anvil.js';

export class AnvilProcess {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly args: string[],
  ) {}

  static async start(options: { chainId?: number; args?: string[] } = {}): Promise<AnvilProcess> {
    const port = await freePort();
    const anvil = new AnvilProcess(port, ['--chain-id', String(options.chainId ?? 1), ...(options.args ?? [])]);
    await anvil.launch();
    return anvil;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Starts it again on the same port (after `kill`); its chain starts afresh. */
  async launch(): Promise<void> {
    const args = ['--port', String(this.port), '--host', '127.0.0.1', '--quiet', ...this.args];
    const binary = foundryBinary('anvil');
    // setpriv ties the process to the test run, so a crashed mocha leaves no anvil behind.
    this.child = existsSync('/usr/bin/setpriv')
      ? spawn('/usr/bin/setpriv', ['--pdeathsig', 'KILL', '--', binary, ...args], { stdio: 'ignore' })
      : spawn(binary, args, { stdio: 'ignore' });
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      try {
        await this.rpc('eth_chainId');
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    throw new Error(`anvil on port ${this.port} did not start`);
  }

  /** SIGKILL, as a crash would; resolves once the process is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  async stop(): Promise<void> {
    await this.kill();
  }

  async rpc<T = any>(method: string, params: unknown[] = []): Promise<T> {
    return rpc<T>(this.url, method, params);
  }
}

/** One JSON-RPC call; throws on a transport fault or an error object. */
export async function rpc<T = any>(url: string, method: string, params: unknown[] = [], headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** A parsed /metrics page: `value(name, labels)` sums the samples whose labels include `labels`. */
export interface MetricsReading {
  value(name: string, labels?: Record<string, string>): number;
}

export async function readMetrics(serviceUrl: string): Promise<MetricsReading> {
  const text = await (await fetch(`${serviceUrl}/metrics`)).text();
  const samples: { name: string; labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return {
    value(name, wanted = {}) {
      return samples
        .filter((s) => s.name === name && Object.entries(wanted).every(([k, v]) => s.labels[k] === v))
        .reduce((sum, s) => sum + s.value, 0);
    },
  };
}


/**
 * A TCP relay on its own loopback port in front of `targetPort`: one more "node" of the same chain (several
 * relays in front of one anvil are several nodes that agree). `kill()` drops every connection and stops
 * listening, as a node that dies; `revive()` listens on the same port again. With `delayAnswers`, each chunk
 * the target sends back is held for the milliseconds it returns (in order: a chunk never overtakes the one
 * before it), as a node that is slow at times.
 */
export class TcpRelay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    readonly port: number,
    private readonly targetPort: number,
    private readonly targetHost: string,
    private readonly delayAnswers: (() => number) | undefined,
  ) {}

  static async start(targetPort: number, targetHost = '127.0.0.1', options: { delayAnswers?: () => number } = {}): Promise<TcpRelay> {
    const relay = new TcpRelay(await freePort(), targetPort, targetHost, options.delayAnswers);
    await relay.revive();
    return relay;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  async revive(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream);
      const delay = this.delayAnswers;
      if (!delay) {
        upstream.pipe(client);
        return;
      }
      const held: { due: number; chunk: Buffer }[] = [];
      let ended = false;
      let timer: NodeJS.Timeout | undefined;
      const drain = () => {
        timer = undefined;
        while (held.length > 0 && held[0].due <= Date.now()) client.write(held.shift()!.chunk);
        if (held.length > 0) timer = setTimeout(drain, held[0].due - Date.now());
        else if (ended) client.end();
      };
      upstream.on('data', (chunk: Buffer) => {
        held.push({ due: Math.max(held.at(-1)?.due ?? 0, Date.now() + delay()), chunk });
        timer ??= setTimeout(drain, held[0].due - Date.now());
      });
      upstream.on('end', () => {
        ended = true;
        timer ??= setTimeout(drain, 0);
      });
      client.on('close', () => clearTimeout(timer));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  /** Every connection cut at once and the port closed. */
  async kill(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
