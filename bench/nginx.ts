/**
 * nginx as the benchmark's reference reverse proxy: the tests' nginx (test/support/nginx.ts), installed
 * here when missing, and waited for until it relays JSON-RPC.
 */
import { startNginx as startProxy, type Nginx } from '../test/support/nginx.js';
import { ensureDebianPackage, waitForRpc } from './tools.js';

export type { Nginx };

export async function startNginx(upstream: string): Promise<Nginx> {
  ensureDebianPackage('nginx', 'nginx');
  const nginx = await startProxy(upstream);
  const url = nginx.url + '/';
  await waitForRpc(url);
  return { url, stop: () => nginx.stop() };
}
