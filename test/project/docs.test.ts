/**
 * The documents stay true to the tree: every repository path README.md and docs/ name (in code spans and in
 * links), every symbol they name in code (`canFund`, `OrderBook.placeOrder`, `solverViews()`) and every
 * configuration variable (`UPSTREAM_TIMEOUT_MS`) exists in the repository. A file moved or a function renamed
 * without its document fails here, not in a reader's hour.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { repoPath } from '../../src/shared/paths.js';

const ROOT = repoPath();
/** Where code lives: symbols and variables the documents name must appear in one of these. */
const CODE_DIRS = ['src', 'bench', 'test', 'schemas', 'web', 'contracts', '.ci'];
const CODE_FILES = ['package.json', '.mocharc.cjs', '.dependency-cruiser.cjs'];
const TOP_DIRS = ['src', 'test', 'bench', 'schemas', 'docs', 'web', 'contracts', '.ci'];
const FILE_EXTENSIONS = /\.(ts|js|cjs|json|md|sol|sql|yml|html|css|svg|png)$/;

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.git')) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? [path, ...walk(path)] : [path];
  });
}

interface Named {
  doc: string;
  text: string;
}

function documents(): string[] {
  return [repoPath('README.md'), ...readdirSync(repoPath('docs')).filter((f) => f.endsWith('.md')).map((f) => repoPath('docs', f))];
}

/** Inline code spans, outside fenced blocks (those are commands and examples, checked by running them). */
function codeSpans(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1].trim());
}

function links(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#'));
}

function named(pick: (markdown: string) => string[]): Named[] {
  return documents().flatMap((doc) => pick(readFileSync(doc, 'utf8')).map((text) => ({ doc: relative(ROOT, doc), text })));
}

describe('the documents name what exists', () => {
  const files = walk(ROOT).map((path) => relative(ROOT, path));
  let code: string | undefined;
  const allCode = () =>
    (code ??= [
      ...CODE_DIRS.flatMap((dir) => (existsSync(repoPath(dir)) ? walk(repoPath(dir)) : [])),
      ...CODE_FILES.map((f) => repoPath(f)),
    ]
      .filter((path) => existsSync(path) && statSync(path).isFile() && !/\.(png|sqlite)$/.test(path))
      .map((path) => readFileSync(path, 'utf8'))
      .join('\n'));

  it('every link to a file of the repository leads to one', () => {
    const broken = named(links).filter(({ doc, text }) => {
      const target = join(dirname(repoPath(doc)), decodeURI(text.split('#')[0]));
      return !existsSync(target);
    });
    assert.deepEqual(broken, []);
  });

  it('every path in a code span exists (a bare file name or partial path: as the end of some path)', () => {
    const missing = named(codeSpans).filter(({ text }) => {
      if (/[\s<>*{}=,()"']|\.\.\./.test(text)) return false;
      const path = text.replace(/^\.\//, '').replace(/\/$/, '');
      const rooted = TOP_DIRS.some((dir) => path === dir || path.startsWith(dir + '/'));
      if (!rooted && !FILE_EXTENSIONS.test(path)) return false;
      if (path.startsWith('dist/')) return false;
      if (rooted) return !existsSync(repoPath(path));
      return !files.some((file) => file === path || file.endsWith('/' + path));
    });
    assert.deepEqual(missing, []);
  });

  it('every symbol named in code exists in the code', () => {
    const identifier = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*(\(\))?$/;
    // A symbol, not a word: dotted (`OrderBook.placeOrder`), called (`sendOnce()`), or camelCase (`canFund`).
    const isSymbol = (text: string) => identifier.test(text) && (text.includes('.') || text.endsWith('()') || /[a-z][A-Z]/.test(text));
    const missing = named(codeSpans).filter(({ text }) => {
      if (!isSymbol(text) || FILE_EXTENSIONS.test(text)) return false;
      const parts = text.replace(/\(\)$/, '').split('.');
      return !parts.every((part) => new RegExp(`(^|[^\\w$])${part.replace(/\$/g, '\\$')}([^\\w$]|$)`, 'm').test(allCode()));
    });
    assert.deepEqual(missing, []);
  });

  it('every configuration variable named exists in the code', () => {
    const variable = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+(=.*)?$/;
    const missing = named(codeSpans).filter(({ text }) => {
      if (!variable.test(text)) return false;
      const name = text.split('=')[0];
      return !new RegExp(`\\b${name}\\b`).test(allCode());
    });
    assert.deepEqual(missing, []);
  });

  it('the README links the specification', () => {
    assert.match(readFileSync(repoPath('README.md'), 'utf8'), /\]\(docs\/spec\.md\)/);
  });
});
