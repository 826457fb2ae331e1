/**
 * An upstream reached over HTTP(S): a keep-alive undici pool, one POST per call or batch.
 */
import { Pool, errors as undiciErrors } from 'undici';
import { UpstreamError } from '../errors.js';
import type { RpcOutcome } from '../jsonrpc.js';
import type { UpstreamCall, UpstreamTransport } from './types.js';
import { toOutcome, batchOutcomes } from './outcome.js';

/** Socket errors raised before a request could be written: the upstream cannot have seen it. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

export interface HttpUpstreamOptions {
  name: string;
  url: string;
  timeoutMs: number;
  connections?: number;
}

export class HttpUpstream implements UpstreamTransport {
  readonly name: string;
  private readonly pool: Pool;
  private readonly path: string;
  private readonly headers: Record<string, string>;

  constructor(options: HttpUpstreamOptions) {
    const url = new URL(options.url);
    this.name = options.name;
    this.path = (url.pathname || '/') + url.search;
    this.headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (url.username) {
      const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
      this.headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    this.pool = new Pool(url.origin, {
      connections: options.connections ?? 128,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connect: { timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  async send(call: UpstreamCall): Promise<RpcOutcome> {
    const body = `{"jsonrpc":"2.0","id":0,"method":${JSON.stringify(call.method)},"params":${JSON.stringify(call.params)}}`;
    return toOutcome(await this.post(body), this.name);
  }

  async sendBatch(calls: UpstreamCall[]): Promise<RpcOutcome[]> {
    const body = JSON.stringify(calls.map((c, id) => ({ jsonrpc: '2.0', id, method: c.method, params: c.params })));
    return batchOutcomes(await this.post(body), calls.length, this.name);
  }

  private async post(body: string): Promise<unknown> {
    let statusCode: number;
    let text: string;
    try {
      const res = await this.pool.request({ path: this.path, method: 'POST', headers: this.headers, body });
      statusCode = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      throw this.transportError(err);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw statusCode >= 400
        ? new UpstreamError('http-status', this.name, `answered HTTP ${statusCode}`)
        : new UpstreamError('bad-response', this.name, 'answered with a body that is not JSON');
    }
    // A JSON-RPC body is the answer whatever the status (some clients send 4xx with an error object);
    // anything else with a failing status is the upstream's fault.
    if (statusCode >= 400 && (typeof parsed !== 'object' || parsed === null)) {
      throw new UpstreamError('http-status', this.name, `answered HTTP ${statusCode}`);
    }
    return parsed;
  }

  private transportError(err: unknown): UpstreamError {
    if (err instanceof undiciErrors.ConnectTimeoutError) {
      return new UpstreamError('unreachable', this.name, 'is unreachable (connect timed out)');
    }
    if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
      return new UpstreamError('timeout', this.name, 'timed out');
    }
    const code = (err as { code?: string }).code ?? (err as Error).message;
    return NEVER_CONNECTED.has(code)
      ? new UpstreamError('unreachable', this.name, `is unreachable (${code})`)
      : new UpstreamError('connection-lost', this.name, `dropped the connection (${code})`);
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
