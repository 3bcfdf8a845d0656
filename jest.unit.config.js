// `pnpm test:unit`: the specs beside the code (`{apps,libs,tools}/*/src/**/*.spec.ts`) in one jest
// project, without the global setup, so no database or Redis is started or needed. A spec under src/
// that does need Postgres or Redis is named `*.int.spec.ts`: `pnpm test` runs it, this config skips it.
const { globalSetup, globalTeardown, ...preset } = require('./jest.preset');

module.exports = {
  ...preset,
  displayName: 'unit',
  rootDir: __dirname,
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools'],
  testMatch: ['<rootDir>/{apps,libs,tools}/*/src/**/*.spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '\\.int\\.spec\\.ts$'],
};
