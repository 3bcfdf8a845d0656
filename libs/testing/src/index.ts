export * from './test-database';
export * from './private-redis';
