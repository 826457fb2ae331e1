/**
 * No module does work at import (the viem rule): importing any module of the service reads no file, swaps
 * nothing process-wide (ethers' keccak256), starts no timer and adds no process listener. Start-up work
 * happens in src/wiring/service.ts (or on first use). Checked in a fresh Node process that watches those effects,
 * then imports every compiled module under dist/src but the entry points (main.js, the CLIs, the replay
 * worker), which exist to do work. Node's process metrics are added to the registry by the service at
 * start (metrics.ts), the repository root found on first use (paths.ts), schemas loaded at the first check
 * (schemas.ts), native bindings at the first hash or recovery.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import { repoPath } from '../../src/shared/paths.js';

const ENTRY_POINTS = new Set(['wiring/main.js', 'cli/check-imports.js', 'cli/compile-contracts.js', 'cli/gen-types.js', 'cli/replay.js', 'cli/demo.js', 'orderbook/read/replay-worker.js', 'orderbook/read/digest-worker.js', 'orderbook/store/wal-checkpoint-worker.js']);

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modules(path);
    return entry.name.endsWith('.js') ? [path] : [];
  });
}

// Runs in the child: records the effects, imports the modules one by one, prints what each did.
const WATCHER = `
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { keccak256 } from 'ethers';
// The one exception: the one logger (src/shared/logger.ts) is made when first imported, and pino hooks its flush
// on the process's exit. Imported before the watch begins.
import './dist/src/shared/logger.js';
const effects = [];
let current = '';
for (const name of ['readFileSync', 'readdirSync', 'openSync', 'readFile', 'open', 'statSync', 'existsSync']) {
  const original = fs[name];
  fs[name] = function (path, ...rest) {
    // Node's module loader reading the modules being imported (the caller's frame is the loader's) is what
    // importing is, not the module's own work.
    const caller = new Error().stack.split('\\n')[2] ?? '';
    if (!caller.includes('node:internal/modules/')) effects.push(current + ': fs.' + name + ' ' + String(path));
    return original.call(this, path, ...rest);
  };
}
syncBuiltinESMExports();
// A module that registers its own keccak256 with ethers now throws at import.
keccak256.lock();
for (const name of ['setTimeout', 'setInterval']) {
  const original = globalThis[name];
  globalThis[name] = function (...args) {
    effects.push(current + ': ' + name);
    return original.apply(this, args);
  };
}
const on = process.on.bind(process);
process.on = (event, listener) => {
  effects.push(current + ': process.on ' + String(event));
  return on(event, listener);
};
for (const url of JSON.parse(process.argv[1])) {
  current = url.slice(url.indexOf('/dist/src/') + 10);
  try {
    await import(url);
  } catch (err) {
    effects.push(current + ': import failed: ' + String(err));
  }
}
process.stdout.write(JSON.stringify(effects));
`;

describe('modules without side effects at import', function () {
  it('imports every module of the service without reading a file, registering, timing or listening', async () => {
    const root = repoPath('dist', 'src');
    const urls = modules(root)
      .filter((path) => !ENTRY_POINTS.has(relative(root, path)))
      .map((path) => pathToFileURL(path).href);
    assert.ok(urls.length > 100, `found ${urls.length} modules under dist/src`);
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', WATCHER, JSON.stringify(urls)], {
      cwd: repoPath(),
      maxBuffer: 16 * 1024 * 1024,
    });
    assert.deepEqual(JSON.parse(stdout), []);
  });
});
