/**
 * What the hostile tests check after each attack on the order book: a refusal has CoW's shape and no stack
 * trace, the log did not move (its head, as GET /api/v1/events pages it), and the process still serves.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { http, type HttpResult } from './http.js';
import { until } from './wait.js';

/** A refusal of the order book: `status`, JSON `{errorType, description}` and nothing else, no stack trace. */
export function assertOrderbookRefusal(res: HttpResult, status: number, errorType: string, description?: RegExp): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(Object.keys(res.json ?? {}).sort(), ['description', 'errorType'], res.text);
  assert.equal(res.json.errorType, errorType, res.text);
  assert.doesNotMatch(res.json.description, /\n\s+at /);
  if (description) assert.match(res.json.description, description);
}

/** The position of the newest event of the service at `url` (0 for an empty log), read page by page. */
export async function logHead(url: string): Promise<number> {
  let head = 0;
  for (;;) {
    const page = (await http(`${url}/api/v1/events?after=${head}&limit=1000`)).json as { position: number }[];
    if (page.length === 0) return head;
    head = page[page.length - 1].position;
  }
}

/** The process runs and its /healthz answers 200 (within a few seconds: the read models may trail the log a moment). */
export async function assertServing(url: string, child: ChildProcess): Promise<void> {
  assert.equal(child.exitCode, null, 'the service process is alive');
  assert.equal(child.signalCode, null, 'the service process is alive');
  await until(async () => (await http(`${url}/healthz`)).status === 200, '/healthz to answer 200');
}
