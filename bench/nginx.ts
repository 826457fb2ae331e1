/**
 * nginx (Debian package) as a plain reverse proxy in front of one upstream: one worker process, keep-alive
 * connections to the upstream, no logging. Its configuration lives in a temporary directory.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDebianPackage, freePort, startChild, waitForRpc } from './tools.js';

export interface Nginx {
  url: string;
  stop(): Promise<void>;
}

export async function startNginx(upstream: string): Promise<Nginx> {
  ensureDebianPackage('nginx', 'nginx');
  const dir = mkdtempSync(join(tmpdir(), 'ethgate-nginx-'));
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  const port = await freePort();
  const target = new URL(upstream);
  const conf = `
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream chain {
    server ${target.host};
    keepalive 128;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:${port};
    keepalive_requests 1000000;
    location / {
      proxy_pass http://chain;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`;
  const file = join(dir, 'nginx.conf');
  writeFileSync(file, conf);
  const child = startChild('nginx', ['-p', dir, '-e', join(dir, 'error.log'), '-c', file], {
    ...process.env,
    PATH: `${process.env.PATH}:/usr/sbin`,
  });
  const url = `http://127.0.0.1:${port}/`;
  await waitForRpc(url, child);
  return {
    url,
    async stop() {
      await child.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
