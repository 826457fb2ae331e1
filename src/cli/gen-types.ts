/**
 * Writes a TypeScript module for every top-level wire shape in schemas/ (src/generated/...), so that the
 * JSON Schemas stay the single source of truth for wire types. `--check` exits 1 when a module is stale.
 */
import { readFileSync, writeFileSync, mkdirSync, readdirSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { compileFromFile } from 'json-schema-to-typescript';
import { repoPath } from '../paths.js';

/** Schemas that only hold shared $defs (primitives, per-method params) produce no module of their own. */
const DEFINITIONS_ONLY = new Set([
  'jsonrpc/primitives.schema.json',
  'jsonrpc/method-params.schema.json',
  'orderbook/primitives.schema.json',
]);

function schemaFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return schemaFiles(path);
    return entry.name.endsWith('.schema.json') ? [path] : [];
  });
}

export async function generateTypes(): Promise<Map<string, string>> {
  const schemasDir = repoPath('schemas');
  const out = new Map<string, string>();
  for (const file of schemaFiles(schemasDir).sort()) {
    const rel = relative(schemasDir, file);
    if (DEFINITIONS_ONLY.has(rel)) continue;
    const ts = await compileFromFile(file, {
      bannerComment: `/* Generated from schemas/${rel} by \`npm run gen:types\`. Do not edit. */`,
      additionalProperties: false,
      ignoreMinAndMaxItems: true,
      style: { singleQuote: true },
    });
    out.set(repoPath('src', 'generated', rel.replace(/\.schema\.json$/, '.ts')), ts);
  }
  return out;
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [path, ts] of await generateTypes()) {
    const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
    if (current === ts) continue;
    stale++;
    if (check) {
      console.error(`stale: ${relative(repoPath(), path)}`);
    } else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, ts);
      console.log(`wrote ${relative(repoPath(), path)}`);
    }
  }
  if (check && stale > 0) process.exit(1);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
