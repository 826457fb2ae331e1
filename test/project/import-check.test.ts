/**
 * The import check (`npm run check:imports`, in `npm test`) can fail: run on a scratch copy of src/ with
 * one import added, it exits 1 and names the broken rule; on the real tree, and on an unchanged copy, it
 * passes. The copy has no node_modules: a package (koa) is named by its bare name there. The added imports are the kinds the old check on dist/ missed: a type-only import (erased from
 * the compiled JavaScript) and a file directly in src/ (no folder edges in dependency-cruiser's folder view).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoPath } from '../../src/shared/paths.js';

interface CheckRun {
  code: number;
  output: string;
}

/** Runs the compiled check with `cwd` as the repository root. */
function runCheck(cwd: string): Promise<CheckRun> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [repoPath('dist/src/cli/check-imports.js')], { cwd }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(err);
      resolve({ code: err ? (err.code as number) : 0, output: stdout + stderr });
    });
  });
}

/** A copy of the sources and the rules, in a directory of its own. */
function scratchCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ethgate-imports-'));
  cpSync(repoPath('src'), join(dir, 'src'), { recursive: true });
  cpSync(repoPath('.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
  return dir;
}

const BREAKS: { rule: string; what: string; change: (dir: string) => void }[] = [
  {
    rule: 'no-folder-cycle',
    what: 'a type-only import from devchain/ of the gateway, which imports devchain/',
    change: (dir) => appendFileSync(join(dir, 'src/devchain/anvil.ts'), "\nimport type { Gateway } from '../gateway/gateway.js';\n"),
  },
  {
    rule: 'no-folder-cycle',
    what: 'a file directly in src/ that the gateway imports and that imports the gateway',
    change: (dir) => {
      writeFileSync(join(dir, 'src/clock.ts'), "import { DEFAULT_RELAYED_METHODS } from './gateway/methods.js';\nexport const n = DEFAULT_RELAYED_METHODS.length;\n");
      appendFileSync(join(dir, 'src/gateway/relay.ts'), "\nimport { n } from '../clock.js';\nexport const m = n;\n");
    },
  },
  {
    rule: 'orderbook-not-gateway',
    what: "the order book importing the gateway's Head (type-only)",
    change: (dir) => appendFileSync(join(dir, 'src/orderbook/chain/live.ts'), "\nexport type { Head } from '../../gateway/head/tracker.js';\n"),
  },
  {
    rule: 'parts-not-wiring',
    what: 'the order book taking its config type from the loader',
    change: (dir) => appendFileSync(join(dir, 'src/orderbook/quotes.ts'), "\nimport type { OrderbookConfig as C } from '../wiring/config.js';\nexport type Q = C;\n"),
  },
  {
    rule: 'shared-imports-no-part',
    what: 'a shared helper importing http/',
    change: (dir) => appendFileSync(join(dir, 'src/shared/paths.ts'), "\nimport { DEFAULT_MAX_JSON_DEPTH } from '../http/json-depth.js';\nexport const d = DEFAULT_MAX_JSON_DEPTH;\n"),
  },
  {
    rule: 'http-knows-no-part',
    what: 'http/ importing the order book',
    change: (dir) => appendFileSync(join(dir, 'src/http/json-depth.ts'), "\nimport type { OrderbookConfig } from '../generated/config.js';\nimport { CANONICAL_SETTLEMENT } from '../orderbook/chain/settlement.js';\nexport const s: OrderbookConfig | string = CANONICAL_SETTLEMENT;\n"),
  },
  {
    rule: 'orderbook-api-at-the-edge',
    what: 'the solvable view taking the wire presenter from api/ (type-only)',
    change: (dir) => appendFileSync(join(dir, 'src/orderbook/read/solvable-view.ts'), "\nexport type { presentOrder } from '../api/present-order.js';\n"),
  },
  {
    rule: 'koa-only-at-the-edge',
    what: "a live stream taking koa's Context (type-only)",
    change: (dir) => appendFileSync(join(dir, 'src/orderbook/live/event-stream.ts'), "\nexport type { Context } from 'koa';\n"),
  },
];

describe('the import check (npm run check:imports)', function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('passes on the real tree', async () => {
    const run = await runCheck(repoPath());
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /no violations/);
  });

  it('passes on an unchanged scratch copy of the sources', async () => {
    const dir = scratchCopy();
    dirs.push(dir);
    const run = await runCheck(dir);
    assert.equal(run.code, 0, run.output);
  });

  for (const { rule, what, change } of BREAKS) {
    it(`fails with ${rule} on ${what}`, async () => {
      const dir = scratchCopy();
      dirs.push(dir);
      change(dir);
      const run = await runCheck(dir);
      assert.equal(run.code, 1, run.output);
      assert.match(run.output, new RegExp(`error ${rule}`));
    });
  }
});
