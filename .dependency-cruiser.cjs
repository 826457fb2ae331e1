// The import graph's rule, checked by `npm test` (`npm run check:imports`, after the build): no cycle
// between folders. A folder's modules may import each other freely; between folders, dependencies go one
// way, so each part of the service (src/gateway, src/orderbook/{write,read,store,...}, src/http, ...) can be
// read on its own. It runs on the compiled JavaScript (dist/): the project's TypeScript 7 compiler has no
// JavaScript API for dependency-cruiser to read sources with, so `import type` lines, erased by the
// compiler, do not count; every import that runs does.
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment: 'Folders import each other in one direction only: move the shared piece to the folder both use.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
  },
};
