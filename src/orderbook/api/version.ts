/** GET /api/v1/version: the service's version (package.json's), read once on first use. */
import { readFileSync } from 'node:fs';
import { repoPath } from '../../shared/paths.js';

let version: string | undefined;

export function serviceVersion(): string {
  version ??= String((JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as { version?: unknown }).version ?? 'unknown');
  return version;
}
