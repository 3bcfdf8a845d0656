export * from './api-error';
export * from './error-catalog';
export * from './normalize-error';
export * from './envelope-exception.filter';
export * from './error-hints';
