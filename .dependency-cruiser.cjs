// The import graph's rules, checked by `npm test` (`npm run check:imports`: src/cli/check-imports.ts reads
// the TypeScript sources with dependency-cruiser and its swc parser, so `import type` counts like any other
// import). Within a folder modules import each other freely; between folders dependencies go one way, and
// between the parts in the directions named below, so each part (docs/architecture.md) reads on its own.
// Files directly in src/ would escape the folder rule (a folder holds everything under it, src/ holds all):
// check-imports.ts counts each of them as a node of its own. bench/ and test/ may import anything.
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
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    parser: 'swc',
    tsPreCompilationDeps: true,
  },
};
