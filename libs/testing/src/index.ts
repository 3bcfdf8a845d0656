export * from './test-database';
export * from './private-redis';
export * from './service-test-app';
