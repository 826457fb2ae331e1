/** `npm run replay -- --json` as an auditor runs it: the CLI as a child process on a store. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { repoPath } from '../../src/shared/paths.js';

export interface ReplayOutput {
  events: number;
  position: number;
  seconds: number;
  digests: Record<string, { position: number; documents: number; sha256: string }>;
}

/** Runs dist/src/cli/replay.js (what `npm run replay` runs) with `env` (DATA_DIR, or DATABASE_URL + DATABASE_SCHEMA). */
export async function replayCli(env: Record<string, string>): Promise<ReplayOutput> {
  const { stdout } = await promisify(execFile)(process.execPath, [repoPath('dist/src/cli/replay.js'), '--json'], {
    cwd: repoPath(),
    env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...env },
  });
  return JSON.parse(stdout);
}
