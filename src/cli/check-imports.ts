/**
 * The import check (`npm run check:imports`, part of `npm test`): reads the TypeScript sources, not the
 * compiled output, so `import type` counts like any import. dependency-cruiser parses them with swc (the
 * project's TypeScript 7 compiler has no JavaScript API to parse with) and applies the rules of
 * .dependency-cruiser.cjs: no cycle between folders, and the named directions between the parts. Its folder
 * rule sees a folder as everything under it, so a file directly in src/ would belong to no part and its
 * edges would go unseen; here every file directly in src/ is a node of its own beside the top-level folders,
 * and a cycle among those nodes fails the check too. Run from the repository root (or a copy of it);
 * exits 1 on any violation.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cruise, format, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { topLevelCycles, type ImportEdge } from './import-graph.js';

const SOURCES = ['src'];

async function main(): Promise<number> {
  const configFile = resolve('.dependency-cruiser.cjs');
  const { default: config } = (await import(pathToFileURL(configFile).href)) as { default: IConfiguration };
  const { forbidden, allowed, allowedSeverity, required, options } = config;
  const cruised = await cruise(SOURCES, {
    ...options,
    ruleSet: { forbidden, allowed, allowedSeverity, required },
    validate: true,
    outputType: 'json',
  });
  const result = JSON.parse(cruised.output as string) as ICruiseResult;
  const report = await format(result, { outputType: 'err-long' });
  let failed = result.summary.error > 0;
  if (failed) process.stdout.write(String(report.output));

  const edges: ImportEdge[] = result.modules.flatMap((module) =>
    module.dependencies.map((dependency) => ({ from: module.source, to: dependency.resolved })),
  );
  for (const cycle of topLevelCycles(edges, 'src')) {
    failed = true;
    process.stdout.write(`  error no-folder-cycle: ${cycle.nodes.join(', ')} import each other (files directly in src/ are nodes of their own)\n`);
    for (const edge of cycle.edges) process.stdout.write(`      ${edge.from} → ${edge.to}\n`);
  }
  const unresolved = result.modules.flatMap((module) =>
    module.dependencies.filter((d) => d.couldNotResolve && d.module.startsWith('.')).map((d) => `${module.source} → ${d.module}`),
  );
  for (const line of unresolved) {
    failed = true;
    process.stdout.write(`  error unresolvable import: ${line}\n`);
  }
  if (!failed) process.stdout.write(`import check: no violations (${result.summary.totalCruised} modules)\n`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
