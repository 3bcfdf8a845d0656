module.exports = { displayName: 'queue', preset: '../../jest.preset.js', rootDir: '.', testMatch: ['<rootDir>/src/**/*.spec.ts'] };
