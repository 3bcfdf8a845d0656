module.exports = { displayName: 'crypto', preset: '../../jest.preset.js', rootDir: '.', testMatch: ['<rootDir>/src/**/*.spec.ts'] };
