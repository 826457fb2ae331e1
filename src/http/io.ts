/** Small helpers for node:http handlers shared by every layer: bounded body reading and JSON replies. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export class PayloadTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`);
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
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.once('error', reject);
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
type WithPreset = ServerResponse & { [PRESET]?: Record<string, string> };

/**
 * A header the JSON reply of `res` will carry whichever handler sends it (e.g. X-Request-Id). Unlike
 * res.setHeader it keeps writeHead on Node's fast path, which takes all headers at once.
 */
export function presetHeader(res: ServerResponse, name: string, value: string): void {
  ((res as WithPreset)[PRESET] ??= {})[name] = value;
}

export function sendJson(res: ServerResponse, status: number, body: string, headers?: Record<string, string>): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...(res as WithPreset)[PRESET],
    ...headers,
  });
  res.end(body);
}
