// Mocha's settings. `npx mocha dist/test/x.test.js` runs only the files named; with none, every test.
// Under CI a skipped test fails the run (--forbid-pending): a suite that cannot reach PostgreSQL or Redis
// there is a broken machine, not a pass.
const named = process.argv.slice(2).filter((arg) => arg.endsWith('.js'));

module.exports = {
  spec: named.length > 0 ? named : ['dist/test/**/*.test.js'],
  timeout: 60000,
  exit: true,
  recursive: true,
  require: ['dist/test/support/setup.js'],
  forbidPending: Boolean(process.env.CI),
};
