/**
 * `npm ci` (what CI runs) refuses a lock file that lacks an optional dependency of a package it installs.
 * The registry mirror of this project's machines has only the linux-x64 builds of the foundry tools, so a
 * lock file generated from scratch there leaves out the other platforms' packages of @foundry-rs/anvil and
 * @foundry-rs/cast; they are recorded by hand (version, os, cpu: npm ci skips them on other platforms
 * without fetching). This test says so before CI fails on it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { repoPath } from '../../src/shared/paths.js';

interface LockPackage {
  version?: string;
  optionalDependencies?: Record<string, string>;
}

describe('package-lock.json', () => {
  it('records every platform package of @foundry-rs/anvil and @foundry-rs/cast, so npm ci accepts it', () => {
    const lock = JSON.parse(readFileSync(repoPath('package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage> };
    for (const tool of ['anvil', 'cast']) {
      const wrapper = lock.packages[`node_modules/@foundry-rs/${tool}`];
      assert.ok(wrapper, `@foundry-rs/${tool} is in the lock file`);
      for (const [name, version] of Object.entries(wrapper.optionalDependencies ?? {})) {
        const entry = lock.packages[`node_modules/${name}`];
        assert.ok(entry, `${name} is missing from package-lock.json: npm ci will refuse it (see this test's comment)`);
        assert.equal(entry.version, version);
      }
    }
  });
});
