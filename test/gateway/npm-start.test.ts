/**
 * `npm start` as a process manager runs it: SIGTERM (or SIGINT) goes to the npm process only, not to its
 * process group. The service and every embedded anvil must be gone within 5 s, whatever npm does with the
 * signal.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/devchain/anvil.js';
import { repoPath } from '../../src/shared/paths.js';
import { http } from '../support/http.js';
import { until } from '../support/wait.js';

/** Live (non-zombie) processes of process group `pgid`, as "pid command". */
function groupMembers(pgid: number): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) !== pgid || state === 'Z') continue;
      found.push(`${entry} ${readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim()}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

// SIGKILL: npm cannot pass anything on; the service sees its parent gone and stops.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGKILL'] as const) {
  describe(`npm start, then ${signal} to the npm process`, function () {
    this.timeout(90_000);
    let pgid: number | undefined;
    let dataDir: string | undefined;

    after(() => {
      // Whatever happened, nothing of the test is left running.
      if (pgid) for (const member of groupMembers(pgid)) process.kill(Number(member.split(' ')[0]), 'SIGKILL');
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it('stops the service and its four embedded anvils within 5 s, leaving no process', async () => {
      const port = await freePort();
      dataDir = mkdtempSync(join(tmpdir(), 'ethgate-npm-start-'));
      const npm = spawn('npm', ['start', '--silent'], {
        cwd: repoPath(),
        env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
        stdio: 'ignore',
        detached: true, // its own process group: every process it starts can be found by the group id
      });
      pgid = npm.pid!;
      const url = `http://127.0.0.1:${port}`;
      await until(async () => (await http(`${url}/healthz`).catch(() => undefined))?.status === 200, '/healthz 200', 60_000);
      const running = groupMembers(pgid);
      assert.equal(running.filter((m) => m.includes('anvil') && !m.includes('setpriv')).length, 4, running.join('\n'));
      assert.ok(running.some((m) => m.includes('dist/src/wiring/main.js')), running.join('\n'));

      const sent = Date.now();
      process.kill(npm.pid!, signal);
      await until(async () => groupMembers(pgid!).length === 0, 'every process of npm start to end', 10_000).catch(() => undefined);
      const left = groupMembers(pgid);
      assert.deepEqual(left, [], `left after ${signal} to npm`);
      assert.ok(Date.now() - sent <= 5_000, `everything ended ${Date.now() - sent} ms after ${signal}`);
    });
  });
}
