/**
 * Writes a TypeScript module for every top-level wire shape in schemas/ (src/generated/...), so that the
 * JSON Schemas stay the single source of truth for wire types. `--check` exits 1 when a module is stale.
 */
import { readFileSync, writeFileSync, mkdirSync, readdirSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { compile } from 'json-schema-to-typescript';
import { repoPath } from '../shared/paths.js';

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

/**
 * Titles in our schemas say what a value must be ("a 20-byte address (0x + 40 hex digits)"), for error
 * messages; only a title that is an identifier (OrderCreation) should name a generated type. Others are
 * dropped here, so such values are typed inline (string, number) with their description as the comment.
 */
function keepTypeNameTitles(node: unknown, isRoot: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => keepTypeNameTitles(item, false));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'title' && typeof value === 'string' && !isRoot && !/^[A-Z][A-Za-z0-9]*$/.test(value)) continue;
    // Property names are data, not schemas: a property called "title" must stay.
    out[key] = key === 'properties' && typeof value === 'object' && value !== null
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, keepTypeNameTitles(v, false)]))
      : keepTypeNameTitles(value, false);
  }
  return out;
}

export async function generateTypes(): Promise<Map<string, string>> {
  const schemasDir = repoPath('schemas');
  const out = new Map<string, string>();
  for (const file of schemaFiles(schemasDir).sort()) {
    const rel = relative(schemasDir, file);
    if (DEFINITIONS_ONLY.has(rel)) continue;
    const schema = keepTypeNameTitles(JSON.parse(readFileSync(file, 'utf8')), true);
    const ts = await compile(schema as Parameters<typeof compile>[0], (schema as { title?: string }).title ?? 'Schema', {
      cwd: dirname(file),
      // Referenced files (primitives) get the same treatment as the root file.
      $refOptions: {
        resolve: {
          file: {
            read: (ref: { url: string }) =>
              JSON.stringify(keepTypeNameTitles(JSON.parse(readFileSync(ref.url.replace(/^file:\/\//, ''), 'utf8')), true)),
          },
        },
      },
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
