export * from './test-database';
export * from './private-redis';
export * from './service-test-app';
export * from './webhook-receiver';
export * from './app-process';
export * from './webhook-env';
export * from './poll-until';
export * from './held-transaction';
