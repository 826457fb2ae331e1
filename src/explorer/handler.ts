/**
 * Serving the explorer on the main port: a browser's GET / (Accept: text/html, on a Host that names no
 * network) gets the page, /explorer/... its scripts and styles, /favicon.ico the icon. Everything else
 * (POST /, JSON-RPC clients, a GET / that does not ask for HTML) is left to the gateway as before.
 * Files are read once, when first asked for, and answered from memory with an ETag.
 *
 * Every file goes with a Content-Security-Policy: scripts, styles, images and connections from this
 * origin only (the page's one inline script, its import map, is allowed by its hash), no framing by any
 * page ("Verify by replay" cannot be clicked through another site), no referrer, no sniffing.
 */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { explorerAssets, type Asset } from './assets.js';
import { logger } from '../shared/logger.js';

interface Loaded {
  body: Buffer;
  type: string;
  etag: string;
  csp: string;
}

/** The policy of a file: 'self' only, plus the hashes of the inline scripts of an HTML page. */
function policyOf(type: string, body: Buffer): string {
  const hashes = type.startsWith('text/html')
    ? [...body.toString('utf8').matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
        (m) => ` 'sha256-${createHash('sha256').update(m[1], 'utf8').digest('base64')}'`,
      )
    : [];
  return `default-src 'self'; script-src 'self'${hashes.join('')}; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;
}

export type ExplorerHandler = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

function wantsHtml(req: IncomingMessage): boolean {
  return /\btext\/html\b/.test(req.headers.accept ?? '');
}

export function createExplorerHandler(): ExplorerHandler {
  let assets: Map<string, Asset> | undefined;
  const loaded = new Map<string, Loaded>();

  const load = (path: string): Loaded | undefined => {
    assets ??= explorerAssets();
    let file = loaded.get(path);
    if (!file) {
      const asset = assets.get(path);
      if (!asset) return undefined;
      const body = readFileSync(asset.file);
      file = { body, type: asset.type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`, csp: policyOf(asset.type, body) };
      loaded.set(path, file);
    }
    return file;
  };

  return (req, res, path) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (path === '/' ? !wantsHtml(req) : path !== '/favicon.ico' && !path.startsWith('/explorer/')) return false;
    let file: Loaded | undefined;
    try {
      file = load(path);
    } catch (err) {
      logger.error({ err, path }, 'the explorer cannot read its files');
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('the explorer cannot read its files (see the service log)\n');
      return true;
    }
    if (!file) return false;
    const headers = {
      'content-type': file.type,
      etag: file.etag,
      // The page always revalidates (it names the other files, which may change with a new version).
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'content-security-policy': file.csp,
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    };
    if (req.headers['if-none-match'] === file.etag) {
      res.writeHead(304, headers);
      res.end();
      return true;
    }
    res.writeHead(200, { ...headers, 'content-length': file.body.length });
    res.end(req.method === 'HEAD' ? undefined : file.body);
    return true;
  };
}
