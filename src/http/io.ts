/** Small helpers for node:http handlers shared by every layer: bounded body reading and JSON replies. */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

export class PayloadTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`);
  }
}

/** The client went away or broke the framing before its body was whole: its fault, nothing to log. */
export class RequestAbortedError extends Error {
  constructor() {
    super('the request body was not received whole');
  }
}

/** Reads the whole body, refusing more than `limit` bytes (by Content-Length up front, else as it streams). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    req.resume();
    return Promise.reject(new PayloadTooLargeError(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new PayloadTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    });
    // `on` rather than `once` (no wrapper per request): each fires at most once, and a settled promise
    // ignores what comes after.
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', () => reject(new RequestAbortedError()));
  });
}

/** `application/json`, with or without parameters such as charset. */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === 'application/json') return true; // the common case, without allocating
  if (!value) return false;
  const type = value.split(';', 1)[0].trim().toLowerCase();
  return type === 'application/json';
}

const PRESET = Symbol('headers preset for the JSON reply');
/** Header names and values one after the other, as writeHead takes them. */
type HeaderList = string[];
type WithPreset = ServerResponse & { [PRESET]?: HeaderList };

/** Sets `name` in `list`, replacing an earlier value of it. */
function setIn(list: HeaderList, name: string, value: string): void {
  for (let i = 0; i < list.length; i += 2) {
    if (list[i] === name) {
      list[i + 1] = value;
      return;
    }
  }
  list.push(name, value);
}

/**
 * A header the JSON reply of `res` will carry whichever handler sends it (e.g. X-Request-Id). Unlike
 * res.setHeader it keeps writeHead on Node's fast path, which takes all headers at once.
 */
export function presetHeader(res: ServerResponse, name: string, value: string): void {
  setIn(((res as WithPreset)[PRESET] ??= []), name, value);
}

/**
 * Sends `body` as JSON with the preset headers and `headers` (which win over presets of the same name). The
 * headers go to writeHead as one flat list, the form Node checks and writes with the least work.
 */
export function sendJson(res: ServerResponse, status: number, body: string, headers?: Record<string, string>): void {
  const list: HeaderList = ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(body))];
  const preset = (res as WithPreset)[PRESET];
  if (preset) for (let i = 0; i < preset.length; i += 2) setIn(list, preset[i], preset[i + 1]);
  if (headers) for (const name in headers) setIn(list, name, headers[name]);
  res.writeHead(status, list);
  res.end(body);
}

/**
 * A JSON answer written straight to a socket that has no ServerResponse: a refused WebSocket upgrade, or a
 * request Node's HTTP parser could not read. The connection is closed after it.
 */
export function endSocketWithJson(socket: Duplex, status: number, body: string, headers: Record<string, string> = {}): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}
