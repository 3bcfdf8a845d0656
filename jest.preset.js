// Shared jest preset: swc compiles TypeScript (with decorator metadata for Nest) and the
// ESM-only packages (jose, oauth4webapi, openid-client, canonicalize) to CommonJS, once, for every project.
const path = require('node:path');
const { pathsToModuleNameMapper } = require('./tools/jest/paths');

const esmOnly = ['jose', 'oauth4webapi', 'openid-client', 'oidc-provider', 'canonicalize'].join('|');

module.exports = {
  testEnvironment: 'node',
  // Suites start a real app on a fresh database in beforeAll; on a busy 2-core machine that can take
  // longer than jest's 5 s default, which then fails for reasons unrelated to the code under test.
  testTimeout: 20_000,
  transform: {
    '^.+\\.(t|j|mj)s$': [
      '@swc/jest',
      {
        swcrc: false,
        jsc: {
          target: 'es2022',
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          keepClassNames: true,
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(\\.pnpm/)?(${esmOnly})[@/+])`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  moduleNameMapper: pathsToModuleNameMapper(path.join(__dirname, 'tsconfig.base.json')),
  globalSetup: path.join(__dirname, 'tools/jest/global-setup.ts'),
  globalTeardown: path.join(__dirname, 'tools/jest/global-teardown.ts'),
};
