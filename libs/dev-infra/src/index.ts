export * from './embedded-postgres';
export * from './redis-server';
export * from './free-port';
export * from './static-server';
