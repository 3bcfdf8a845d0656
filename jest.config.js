// `pnpm test` runs every jest project in one jest process so workers are shared across projects.
module.exports = {
  projects: ['<rootDir>/apps/*/jest.config.js', '<rootDir>/libs/*/jest.config.js', '<rootDir>/tools/launcher/jest.config.js', '<rootDir>/tools/ops/jest.config.js'],
  // A global option: jest reads it here, not from each project's preset.
  testTimeout: 20_000,
};
