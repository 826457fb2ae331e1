/**
 * The bystander of the abuse bench (abuse.ts), run as a worker thread so that the attacks the bench's main
 * thread drives cannot delay its timers or its reads: every 10 ms it asks the service for a cached gateway
 * call and one order by UID, as a client minding its own business would, and keeps each answer's latency
 * (request sent to body read) until told to stop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

/** One request the bystander makes every tick. */
export interface BystanderRequest {
  path: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

interface BystanderData {
  base: string;
  requests: BystanderRequest[];
  intervalMs: number;
}

const { base, requests, intervalMs } = workerData as BystanderData;
const pool = new Pool(base, { connections: requests.length * 4, pipelining: 1 });
const latencies: number[] = [];
let failures = 0;

const ask = async (request: BystanderRequest): Promise<void> => {
  const started = performance.now();
  try {
    const res = await pool.request(request);
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) failures++;
  } catch {
    failures++;
  }
  latencies.push(performance.now() - started);
};

const timer = setInterval(() => {
  for (const request of requests) void ask(request);
}, intervalMs);

parentPort!.on('message', (message: string) => {
  if (message === 'reset') {
    latencies.length = 0;
    failures = 0;
    return;
  }
  if (message === 'report') {
    parentPort!.postMessage({ latencies: latencies.splice(0), failures });
    failures = 0;
    return;
  }
  if (message === 'stop') {
    clearInterval(timer);
    void pool.close().then(() => process.exit(0));
  }
});
