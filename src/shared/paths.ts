import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { existsSync } from 'node:fs';

/**
 * The repository root, found from this module whether it runs from src/ (tsx) or dist/src/ (compiled):
 * schemas/ and contract artifacts are read from there at run time.
 */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = resolve(dir, '..');
    if (parent === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

let root: string | undefined;

export function repoPath(...parts: string[]): string {
  return join((root ??= findRoot()), ...parts);
}
