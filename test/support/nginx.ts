/**
 * nginx (Debian package, installed by .ci/run) as a plain reverse proxy in front of one upstream: one worker
 * process, keep-alive connections to the upstream, no logging, its configuration in a temporary directory.
 * Tests use it as the proxy a deployment puts in front of the service; the benchmark as a reference relay.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/devchain/anvil.js';

export interface Nginx {
  url: string;
  stop(): Promise<void>;
}

export interface NginxOptions {
  /** Append the peer address to X-Forwarded-For, as a deployment in front of the service does. */
  forwardedFor?: boolean;
  /** The address nginx listens on (default 127.0.0.1; 0.0.0.0 to take clients from other interfaces too). */
  listen?: string;
  /** The local address nginx connects to the upstream from (proxy_bind), e.g. another loopback address. */
  bindAddress?: string;
}

export async function startNginx(upstream: string, options: NginxOptions = {}): Promise<Nginx> {
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
  upstream target {
    server ${target.host};
    keepalive 128;
    keepalive_requests 1000000;
  }
  server {
    listen ${options.listen ?? '127.0.0.1'}:${port};
    keepalive_requests 1000000;
    location / {
      proxy_pass http://target;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # The client's Host, as deployments pass it (the service answers only the hosts it is told of).
      proxy_set_header Host $http_host;
      ${options.forwardedFor ? 'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;' : ''}
      ${options.bindAddress ? `proxy_bind ${options.bindAddress};` : ''}
    }
  }
}
`;
  const file = join(dir, 'nginx.conf');
  writeFileSync(file, conf);
  const child = spawn('nginx', ['-p', dir, '-e', join(dir, 'error.log'), '-c', file], {
    env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin` },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (err) => (stderr += err.message));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not start: ${stderr || 'is the Debian package nginx installed?'}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
