export * from './embedded-postgres';
export * from './redis-server';
export * from './free-port';
export * from './process-supervisor';
export * from './static-server';
export * from './build-if-stale';
export * from './gateway';
export * from './publish-build';
