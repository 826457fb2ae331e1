// The import graph's rules, checked by `npm test` (`npm run check:imports`: src/cli/check-imports.ts reads
// the TypeScript sources with dependency-cruiser and its swc parser, so `import type` counts like any other
// import). Within a folder modules import each other freely; between folders dependencies go one way, and
// between the parts in the directions named below, so each part (docs/architecture.md) reads on its own.
// Files directly in src/ would escape the folder rule (a folder holds everything under it, src/ holds all):
// check-imports.ts counts each of them as a node of its own. bench/ and test/ may import anything.
// The order book's api/ is its edge (routes, presenters, encodings): nothing else in the order book imports
// it, and koa stays there.
const PARTS = 'gateway|orderbook|http|devchain|explorer|contracts|shared';

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment: 'Folders import each other in one direction only: move the shared piece to the folder both use.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'orderbook-not-gateway',
      comment: 'The order book knows nothing of the gateway: src/wiring/ gives it the chain through its port.',
      severity: 'error',
      from: { path: '^src/orderbook/' },
      to: { path: '^src/gateway/' },
    },
    {
      name: 'parts-not-wiring',
      comment: 'The wiring (src/wiring/) starts and connects the parts; no part imports it.',
      severity: 'error',
      from: { path: `^src/(${PARTS}|generated)/` },
      to: { path: '^src/wiring/' },
    },
    {
      name: 'shared-imports-no-part',
      comment: 'src/shared/ holds what every part uses, so it imports none of them (the generated wire types are no part).',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: '^src/', pathNot: '^src/(shared|generated)/' },
    },
    {
      name: 'http-knows-no-part',
      comment: 'src/http/ is the HTTP plumbing both parts use; it knows neither.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/(gateway|orderbook)/' },
    },
    {
      name: 'orderbook-api-at-the-edge',
      comment:
        "The order book's HTTP API (api/: routes, presenters, encodings) is its edge: the folders under it (read, write, usecases, live, domain, store, chain) never import it; a format they need is declared where it is used and given by the API (read/solvable-encoding.ts).",
      severity: 'error',
      from: { path: '^src/orderbook/[^/]+/', pathNot: '^src/orderbook/api/' },
      to: { path: '^src/orderbook/api/' },
    },
    {
      name: 'koa-only-at-the-edge',
      comment: "koa is the order book API's framework: only src/orderbook/api/ (and the listeners and the process, src/http/ and src/wiring/) import it.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(orderbook/api|http|wiring)/' },
      // The resolved file (node_modules/koa/...), or the bare name where node_modules is absent (a scratch copy).
      to: { path: '(^|node_modules/)(@types/)?(koa|koa-[^/]+|koa__[^/]+|@koa/[^/]+)($|/)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    parser: 'swc',
    tsPreCompilationDeps: true,
  },
};
