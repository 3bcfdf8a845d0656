// `pnpm test` runs every jest project in one jest process so workers are shared across projects.
module.exports = {
  projects: ['<rootDir>/apps/*/jest.config.js', '<rootDir>/libs/*/jest.config.js', '<rootDir>/tools/launcher/jest.config.js', '<rootDir>/tools/ops/jest.config.js'],
  // A global option: jest reads it here, not from each project's preset.
  testTimeout: 20_000,
  // Each suite leaves some of its module graph in the heap (25-80 MB), so one process running all of them
  // grows to gigabytes. Jest then runs suites in a worker process (even on one core) and replaces it once
  // it holds more than this after a suite.
  workerIdleMemoryLimit: '1GB',
};
