/**
 * Plain HTTP calls for tests that check status codes and raw bodies. Every order book refusal read here
 * (under /api/, `{errorType, description}`) must be one its OpenAPI document declares (support/openapi.ts).
 */
import { undeclaredError } from './openapi.js';

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function http(url: string, init: RequestInit = {}): Promise<HttpResult> {
  const res = await fetch(url, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  checkDeclared(init.method ?? 'GET', url, res.status, json);
  return { status: res.status, headers: res.headers, text, json };
}

/** Throws when `json` is an order book refusal its OpenAPI document does not declare for the request. */
function checkDeclared(method: string, url: string, status: number, json: unknown): void {
  if (typeof json !== 'object' || json === null || !('errorType' in json) || !('description' in json)) return;
  if (!new URL(url).pathname.startsWith('/api/')) return;
  const why = undeclaredError(method, url, status, String(json.errorType));
  if (why) throw new Error(`undeclared order book refusal: ${why}`);
}

/** POST a JSON body (a value, serialised here, or a raw string sent as is). */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  return http(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/**
 * A request through node:http, which (unlike fetch) lets a test set any header, Host included (e.g.
 * mainnet.localhost to reach a network's own address on the main port), or leave Content-Type out.
 */
export async function request(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** The local address to connect from (another loopback address is another client). */
    localAddress?: string;
  } = {},
): Promise<HttpResult> {
  const { request: send } = await import('node:http');
  // node:http frames no body of a DELETE by itself: it would reach the server as the next request.
  const headers =
    options.body !== undefined && !Object.keys(options.headers ?? {}).some((h) => /^(content-length|transfer-encoding)$/i.test(h))
      ? { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) }
      : options.headers;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: options.method ?? 'GET', headers, localAddress: options.localAddress }, (res) => {
      const chunks: Buffer[] = [];
      const headers = new Headers();
      for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
      // A stream (SSE) does not end: its status and headers are the answer.
      if (res.headers['content-type']?.startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, headers, text: '', json: undefined });
        req.destroy();
        return;
      }
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        try {
          checkDeclared(options.method ?? 'GET', url, res.statusCode ?? 0, json);
        } catch (err) {
          return reject(err);
        }
        resolve({ status: res.statusCode ?? 0, headers, text, json });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** POST a JSON body (a value, or a raw string sent as is) with the given Host header. */
export function postWithHost(url: string, host: string, body: unknown, contentType = 'application/json'): Promise<HttpResult> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return request(url, { method: 'POST', headers: { host, 'content-type': contentType }, body: payload });
}

/**
 * Bytes written straight to a TCP connection, for requests no HTTP client will send (no Host, broken
 * framing, bytes a URL may not hold); resolves the answer once the server closes or has sent a whole one.
 */
export async function rawRequest(url: string, bytes: string | Buffer): Promise<HttpResult> {
  const { connect } = await import('node:net');
  const { port, hostname } = new URL(url);
  const text = await new Promise<string>((resolve, reject) => {
    let received = '';
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const whole = () => {
      const end = received.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(received.slice(0, end));
      return end !== -1 && length !== null && Buffer.byteLength(received.slice(end + 4)) >= Number(length[1]);
    };
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if (whole()) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on('close', () => resolve(received));
    socket.on('error', (err) => (received ? resolve(received) : reject(err)));
  });
  const end = text.indexOf('\r\n\r\n');
  const [statusLine, ...headerLines] = text.slice(0, end).split('\r\n');
  const headers = new Headers();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const body = text.slice(end + 4);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, text: body, json };
}
