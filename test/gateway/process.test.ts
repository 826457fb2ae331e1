/**
 * The service as a user runs it: `node dist/src/wiring/main.js` (what `npm start` runs) with no configuration but a
 * port and a data directory, so with the four default networks on embedded anvils. It serves a first
 * request within 10 seconds, restarts an embedded anvil that dies, and on SIGTERM or SIGINT exits with code 0
 * leaving no anvil behind.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/devchain/anvil.js';
import { repoPath } from '../../src/shared/paths.js';
import { http } from '../support/http.js';
import { WsClient } from '../support/ws.js';
import { DEV_KEYS, signedTransfer } from '../support/chain.js';
import { until } from '../support/wait.js';

const DEFAULT_CHAIN_IDS = { mainnet: '0x1', ropsten: '0x3', kovan: '0x2a', rinkeby: '0x4' };

interface Running {
  child: ChildProcess;
  url: string;
  dataDir: string;
  /** The service's log lines, shown when a test fails. */
  output: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Milliseconds from spawn to the first successful eth_blockNumber on mainnet. */
  firstAnswerMs: number;
}

/** Anvil pids by network, from the pid files the service keeps under DATA_DIR/run. */
function anvilPids(dataDir: string): Record<string, number> {
  const dir = join(dataDir, 'run');
  if (!existsSync(dir)) return {};
  return Object.fromEntries(
    readdirSync(dir)
      .filter((f) => /^anvil-.+\.pid$/.test(f))
      .map((f) => [f.slice('anvil-'.length, -'.pid'.length), Number(readFileSync(join(dir, f), 'utf8'))]),
  );
}

/** Whether `pid` is a live anvil (not gone, not a zombie, not a pid reused by something else). */
function isLiveAnvil(pid: number): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return cmdline.includes('anvil') && state !== 'Z';
  } catch {
    return false;
  }
}

async function start(): Promise<Running> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'ethgate-process-'));
  const began = Date.now();
  // A clean environment: no NETWORKS or UPSTREAM_* from the test run, so the defaults apply.
  const child = spawn(process.execPath, [repoPath('dist/src/wiring/main.js')], {
    cwd: repoPath(),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, so that a test can signal it the way a terminal's Ctrl-C does
  });
  const output: string[] = [];
  child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  let answered = false;
  while (!answered) {
    if (Date.now() - began > 20_000 || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`the service did not answer within 20 s:\n${output.join('')}`);
    }
    try {
      const res = await http(`${url}/v1/jsonrpc/mainnet/eth_blockNumber`);
      answered = res.status === 200 && res.json.result === '0x0';
    } catch {
      // not listening yet
    }
    if (!answered) await new Promise((r) => setTimeout(r, 50));
  }
  return { child, url, dataDir, output, exited, firstAnswerMs: Date.now() - began };
}

async function stopWith(running: Running, signal: NodeJS.Signals, toGroup: boolean): Promise<void> {
  const pids = Object.values(anvilPids(running.dataDir));
  assert.equal(pids.length, 4, running.output.join(''));
  for (const pid of pids) assert.ok(isLiveAnvil(pid), `anvil ${pid} runs before the ${signal}`);

  if (toGroup) process.kill(-running.child.pid!, signal);
  else running.child.kill(signal);
  const timeout = setTimeout(() => running.child.kill('SIGKILL'), 20_000);
  const { code, signal: killedBy } = await running.exited;
  clearTimeout(timeout);
  assert.equal(killedBy, null, running.output.join(''));
  assert.equal(code, 0, running.output.join(''));
  for (const pid of pids) assert.ok(!isLiveAnvil(pid), `anvil ${pid} is left after ${signal}`);
  assert.deepEqual(anvilPids(running.dataDir), {}, 'pid files are removed');
  rmSync(running.dataDir, { recursive: true, force: true });
}

describe('the service as a process (node dist/src/wiring/main.js)', function () {
  this.timeout(90_000);
  let running: Running | undefined;

  afterEach(() => {
    // A failed test must not leave the service and its chains running.
    if (running?.child.exitCode === null) process.kill(-running.child.pid!, 'SIGKILL');
    running = undefined;
  });

  it('serves its first request within 10 s, on the four default networks, and exits 0 on SIGTERM leaving no anvil', async () => {
    running = await start();
    assert.ok(running.firstAnswerMs < 10_000, `first answer after ${running.firstAnswerMs} ms`);
    for (const [network, chainId] of Object.entries(DEFAULT_CHAIN_IDS)) {
      const viaRest = await http(`${running.url}/v1/jsonrpc/${network}/eth_blockNumber`);
      assert.equal(viaRest.status, 200);
      const viaWs = await WsClient.connect(`${running.url.replace('http', 'ws')}/v1/jsonrpc/${network}/ws`);
      assert.equal((await viaWs.call('eth_chainId')).result, chainId, network);
      await viaWs.close();
    }
    // The gateway answers first; /healthz turns 200 once the order book has deployed its dev contracts
    // and caught up too.
    const url = running.url;
    await until(async () => (await http(`${url}/healthz`)).status === 200, '/healthz to answer 200', 15_000);
    await stopWith(running, 'SIGTERM', false);
  });

  it('restarts an embedded anvil killed with SIGKILL on the same port, subscriptions included, then exits 0 on SIGINT (Ctrl-C)', async () => {
    running = await start();
    const before = anvilPids(running.dataDir);
    const ws = await WsClient.connect(`${running.url.replace('http', 'ws')}/ws`, 'kovan.localhost');
    const sub = (await ws.call('eth_subscribe', ['newHeads'])).result;
    assert.match(sub, /^0x/);

    process.kill(before.kovan, 'SIGKILL');
    await until(() => !isLiveAnvil(before.kovan), 'the killed anvil to be gone');
    await until(async () => {
      const pids = anvilPids(running!.dataDir);
      return pids.kovan !== undefined && pids.kovan !== before.kovan && isLiveAnvil(pids.kovan);
    }, 'a new kovan anvil', 15_000);
    // The network answers again, on a fresh chain, through the same upstream URL.
    await until(async () => (await http(`${running!.url}/v1/jsonrpc/kovan/eth_blockNumber`)).status === 200, 'kovan to answer', 15_000);
    const others = anvilPids(running.dataDir);
    for (const network of ['mainnet', 'ropsten', 'rinkeby']) assert.equal(others[network], before[network], `${network} was not touched`);

    // The client's subscription is made again upstream (once the new anvil accepts WebSocket connections):
    // new blocks on the new chain reach it under the same subscription id.
    const seen = ws.notifications.length;
    let nonce = 0;
    await until(async () => {
      const sent = await ws.call('eth_sendRawTransaction', [await signedTransfer(DEV_KEYS[0], nonce, { chainId: 42 })]);
      if (typeof sent.result === 'string') nonce++;
      if (ws.notifications.length > seen) return true;
      await new Promise((r) => setTimeout(r, 200));
      return false;
    }, 'a newHeads notification from the restarted chain', 20_000);
    const note = await ws.notification(sub, seen);
    assert.ok(Number(note.params.result.number) <= nonce, 'a block of the new chain');
    await ws.close();

    await stopWith(running, 'SIGINT', true);
  });
});
