/**
 * The explorer's files: its own (web/explorer/, plain ES modules, no build step) and the libraries it
 * imports, served from their npm packages (Preact, htm, uPlot), so that the page needs nothing but this
 * service: no CDN, no internet. Each URL maps to one file; anything else is not served.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { repoPath } from '../shared/paths.js';

export interface Asset {
  file: string;
  type: string;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** The directory of an installed npm package: above its main file, where its package.json names it. */
function packageDir(name: string): string {
  let dir = dirname(createRequire(import.meta.url).resolve(name));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === name) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`the package ${name} is not installed`);
    dir = parent;
  }
}

/** The explorer's URL paths and their files; computed when first asked for, not at import. */
export function explorerAssets(): Map<string, Asset> {
  const web = repoPath('web/explorer');
  const preact = packageDir('preact');
  const own = (name: string, type: string): [string, Asset] => [`/explorer/${name}`, { file: join(web, name), type }];
  return new Map<string, Asset>([
    ['/', { file: join(web, 'index.html'), type: 'text/html; charset=utf-8' }],
    ['/favicon.ico', { file: join(web, 'favicon.svg'), type: 'image/svg+xml' }],
    own('favicon.svg', 'image/svg+xml'),
    own('app.js', JS),
    own('data.js', JS),
    own('pages.js', JS),
    own('depth-chart.js', JS),
    own('format.js', JS),
    own('tokens.js', JS),
    own('html.js', JS),
    own('style.css', CSS),
    ['/explorer/vendor/preact.mjs', { file: join(preact, 'dist/preact.mjs'), type: JS }],
    ['/explorer/vendor/hooks.mjs', { file: join(preact, 'hooks/dist/hooks.mjs'), type: JS }],
    ['/explorer/vendor/htm.mjs', { file: join(packageDir('htm'), 'dist/htm.mjs'), type: JS }],
    ['/explorer/vendor/uPlot.esm.js', { file: join(packageDir('uplot'), 'dist/uPlot.esm.js'), type: JS }],
    ['/explorer/vendor/uPlot.min.css', { file: join(packageDir('uplot'), 'dist/uPlot.min.css'), type: CSS }],
  ]);
}
